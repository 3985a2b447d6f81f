-- Two more shapes of the order list that cost the same at any size:
-- - one user's orders in one status (a customer's own list filtered by state), by an index led by both;
-- - the count of orders created within whole days (`from` a date, `to` a date or absent), per status too,
--   kept like the counts of migration 0026 (the orders of each UTC day per status, spread over 16 rows by
--   order id so that concurrent placements do not queue on one row): the contract's own search example.
CREATE INDEX IF NOT EXISTS orders_user_status_created_at_id ON orders (user_id, status, created_at, id);

CREATE TABLE order_day_counts (
  day    date NOT NULL,
  status text NOT NULL,
  shard  smallint NOT NULL,
  count  bigint NOT NULL,
  PRIMARY KEY (day, status, shard)
);

CREATE FUNCTION order_day_counts_add(order_id bigint, created timestamptz, order_status text, delta integer)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO order_day_counts (day, status, shard, count)
  VALUES ((created AT TIME ZONE 'UTC')::date, order_status, (order_id % 16)::smallint, delta)
    ON CONFLICT (day, status, shard) DO UPDATE SET count = order_day_counts.count + EXCLUDED.count;
$$;

CREATE OR REPLACE FUNCTION order_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM order_counts_add(OLD.id, OLD.user_id, OLD.status, -1);
    PERFORM order_day_counts_add(OLD.id, OLD.created_at, OLD.status, -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM order_counts_add(NEW.id, NEW.user_id, NEW.status, 1);
    PERFORM order_day_counts_add(NEW.id, NEW.created_at, NEW.status, 1);
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER order_counts_on_move ON orders;
CREATE TRIGGER order_counts_on_move AFTER UPDATE OF status, user_id, created_at ON orders
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.user_id IS DISTINCT FROM NEW.user_id
                     OR OLD.created_at IS DISTINCT FROM NEW.created_at)
  EXECUTE FUNCTION order_counts_follow();

-- The orders placed before this migration (one pass over the table).
INSERT INTO order_day_counts (day, status, shard, count)
SELECT (created_at AT TIME ZONE 'UTC')::date, status, (id % 16)::smallint, count(*) FROM orders GROUP BY 1, 2, 3;
