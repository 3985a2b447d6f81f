-- A claim whose request ended without an outcome (the database failed under it) is marked ended once the
-- database is back, so that a retry on any instance takes it over at once instead of waiting out its lease.
ALTER TABLE idempotency_keys ADD COLUMN ended_at timestamptz;
