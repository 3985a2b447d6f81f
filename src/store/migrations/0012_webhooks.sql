-- Webhook endpoints, the deliveries queued for them (in the transaction that writes the event) and the
-- log of attempts. The signing secret is kept as it is: HMAC signing needs it (unlike API keys, hashed).
CREATE TABLE webhook_endpoints (
  id bigserial PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- An admin's endpoint receives every event of its types; a customer's only its own.
  all_owners boolean NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  description text,
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  disabled_reason text,
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id, id);

CREATE TABLE webhook_deliveries (
  id bigserial PRIMARY KEY,
  endpoint_id bigint NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  attempts integer NOT NULL DEFAULT 0,
  -- pending (due at next_attempt_at), succeeded, failed (retries spent, or the endpoint was disabled)
  state text NOT NULL DEFAULT 'pending',
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- An instance that claimed the delivery holds it until then; after a crash another takes it over.
  lease_until timestamptz
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';

CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  endpoint_id bigint NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event_type text NOT NULL,
  attempt integer NOT NULL,
  status integer,
  duration_ms integer NOT NULL,
  error text,
  attempted_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  next_retry_at timestamptz
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id DESC);
