-- A sort by amount with `createdAt` in the other direction (`-amount,createdAt`, `amount,-createdAt`, the
-- tie-breaker `id` following `createdAt`) read by one index, in either direction, instead of sorting each
-- group of equal amounts: with few distinct amounts such a group holds a share of the whole table.
CREATE INDEX IF NOT EXISTS orders_amount_created_at_desc_id ON orders (amount_minor, created_at DESC, id DESC);
