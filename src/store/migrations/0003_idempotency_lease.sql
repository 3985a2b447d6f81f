-- A claim is a lease: the order it holds stock for is recorded, so that when the claim expires (its process
-- died, or the database failed under it) the stock is released and a retry may take the key over.
ALTER TABLE idempotency_keys ADD COLUMN held_order_id bigint;
