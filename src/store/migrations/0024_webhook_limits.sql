-- Per-owner webhook limits an admin sets (issue 42): how many endpoints a user may hold and how many
-- deliveries its endpoints get a minute. NULL keeps the server's default (WEBHOOK_MAX_ENDPOINTS,
-- WEBHOOK_DELIVERIES_PER_MINUTE), as every user has it before this release.
ALTER TABLE users ADD COLUMN webhook_max_endpoints integer, ADD COLUMN webhook_deliveries_per_minute integer;
