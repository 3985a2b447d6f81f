-- A claim's token, chosen by the instance before it sends the claim: an instance whose claim statement
-- got no answer (the connection hung or broke) knows the token all the same and can mark that claim
-- ended, so a retry need not wait out the lease. Rows of instances before this migration have none: their
-- token stays their created_at as text (COALESCE(token, created_at::text) everywhere).
ALTER TABLE idempotency_keys ADD COLUMN token text;
