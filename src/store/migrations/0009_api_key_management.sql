-- Key management: a label to tell integrations apart, an optional expiry, scopes, the last use, and the
-- key that replaced this one by rotation. Existing keys keep working: no label, no expiry, and the scopes
-- their role allows today (the lists of src/core/scopes.ts as of this migration). A NULL scopes value
-- means the same, for keys that instances of the previous release insert during a rolling deploy.
ALTER TABLE api_keys ADD COLUMN label text CHECK (label IS NULL OR char_length(label) BETWEEN 1 AND 100);
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
ALTER TABLE api_keys ADD COLUMN scopes text[];
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
ALTER TABLE api_keys ADD COLUMN replaced_by bigint REFERENCES api_keys (id) ON DELETE SET NULL;
UPDATE api_keys SET scopes = CASE role
  WHEN 'admin' THEN ARRAY['orders:read', 'orders:write', 'users:read', 'users:write', 'ratings:write',
                          'catalog:write', 'keys:read', 'keys:write', 'webhooks:write', 'admin']
  ELSE ARRAY['orders:read', 'orders:write', 'users:read', 'users:write', 'ratings:write', 'keys:read',
             'keys:write']
END;
