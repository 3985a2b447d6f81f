-- A key may have its own rate budget (points per window); NULL means its role's default.
ALTER TABLE api_keys ADD COLUMN rate_limit integer CHECK (rate_limit IS NULL OR rate_limit > 0);
