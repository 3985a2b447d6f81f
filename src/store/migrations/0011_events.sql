-- Events (the transactional outbox), written in the transaction of the change that causes them.
CREATE TABLE events (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  type text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  owner_user_id bigint,
  subject text NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX events_created_at ON events (created_at);
CREATE INDEX events_owner ON events (owner_user_id, seq);
