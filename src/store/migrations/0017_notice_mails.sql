-- The outbox of notice e-mails (deprecation.announced, brownout.scheduled): written with SMTP_URL set, in the
-- transaction of the event it names, one row per notified user with an address; sent by the mail dispatcher
-- of any instance (claimed with FOR UPDATE SKIP LOCKED and a lease, as webhook deliveries are). Each row is
-- the record of its delivery: attempts, the last error, when the SMTP server accepted it.
CREATE TABLE notice_mails (
  id bigserial PRIMARY KEY,
  event_id text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  recipient text NOT NULL,
  subject text NOT NULL,
  body text NOT NULL,
  -- pending (due at next_attempt_at), succeeded (accepted by the SMTP server), failed (refused for good,
  -- or the attempts spent)
  state text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- An instance that claimed the mail holds it until then; after a crash another takes it over.
  lease_until timestamptz,
  last_attempt_at timestamptz,
  last_error text,
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX notice_mails_due ON notice_mails (next_attempt_at) WHERE state = 'pending';
CREATE INDEX notice_mails_event ON notice_mails (event_id);
-- The notices report reads the webhook deliveries of a few events.
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
