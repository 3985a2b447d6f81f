-- The transactional outbox of events (docs/events.md): a row is written in the same transaction as the
-- change that causes it, so there is no event without its change and no change without its event. `seq`
-- orders the rows for streams and the dispatcher; `id` is the public identifier of the envelope.
-- `tx_id` is the writing transaction: readers follow (tx_id, seq) and read only rows of transactions older
-- than every running one (pg_snapshot_xmin), so a row that commits late is never skipped by a reader that
-- has already moved past a higher seq.
-- `owner_user_id` is the user whose resource changed (a customer sees the events of its own orders);
-- NULL means admins only (stock, deprecation notices addressed by the dispatcher).
CREATE TABLE events (
  seq           bigserial PRIMARY KEY,
  tx_id         xid8 NOT NULL DEFAULT pg_current_xact_id(),
  id            text NOT NULL UNIQUE,
  type          text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  owner_user_id bigint,
  subject       text NOT NULL,
  data          jsonb NOT NULL
);
CREATE INDEX events_by_time ON events (created_at, seq);
CREATE INDEX events_by_position ON events (tx_id, seq);
CREATE INDEX events_by_owner ON events (owner_user_id, seq);
CREATE INDEX events_by_subject ON events (subject, seq);
