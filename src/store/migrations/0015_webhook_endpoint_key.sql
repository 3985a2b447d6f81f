-- The API key that registered a webhook endpoint: a delivery that carries a deprecated or watched item
-- (an event type, a payload member) counts as a use by this key (docs/events.md). A rotation moves the
-- endpoints of the old key to its successor. NULL for endpoints registered before this column, by an
-- in-process caller without a key, or by an instance of the previous release during a rolling deploy:
-- their deliveries count for the owner's newest active key (src/store/webhook-store.ts, claimDue).
ALTER TABLE webhook_endpoints ADD COLUMN api_key_id bigint REFERENCES api_keys (id) ON DELETE SET NULL;
CREATE INDEX webhook_endpoints_api_key ON webhook_endpoints (api_key_id) WHERE api_key_id IS NOT NULL;
