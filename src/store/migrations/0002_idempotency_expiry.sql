-- Idempotency keys are purged once they leave their 24-hour window; this index keeps the purge cheap.
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
