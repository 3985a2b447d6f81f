-- Unpaid orders no longer hold stock forever (issue 42): an order placed from this release on is canceled
-- by the server when it is still PENDING after UNPAID_ORDER_MINUTES, which releases its stock. Orders placed
-- before keep the rule they were placed under (no expiry): existing rows get false, new rows true.
ALTER TABLE orders ADD COLUMN unpaid_expiry boolean NOT NULL DEFAULT false;
ALTER TABLE orders ALTER COLUMN unpaid_expiry SET DEFAULT true;
CREATE INDEX orders_unpaid_expiry ON orders (created_at) WHERE status = 'PENDING' AND unpaid_expiry;
