-- Every sort of the order list within one status by index, so its cost does not grow with the data: it reads
-- each status it is asked for by one index scan led by the status, in the order of the sort
-- (orders_status_created_at_id already serves createdAt).
CREATE INDEX IF NOT EXISTS orders_status_amount_id ON orders (status, amount_minor, id);
CREATE INDEX IF NOT EXISTS orders_status_id ON orders (status, id);
