-- A key's own use of deprecated and watched items (GET /v1/api-keys/{apiKeyId}/deprecations, GraphQL
-- `me { deprecatedUsage }`) reads one key's rows of the last 30 days; the primary key leads with the item,
-- so without this index that read scans every caller's rows of the period.
CREATE INDEX deprecation_usage_key_day ON deprecation_usage (api_key_id, day);
