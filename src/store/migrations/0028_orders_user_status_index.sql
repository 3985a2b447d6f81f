-- One user's orders in one status (a customer's own list filtered by state) by an index led by both, so
-- that a page costs the same however many orders that user has in other states.
CREATE INDEX IF NOT EXISTS orders_user_status_created_at_id ON orders (user_id, status, created_at, id);
