-- Exact order counts that do not scan (`withTotal=true` on the common shapes): the number of orders per
-- status, and per user and status, kept by triggers in the transaction of every write that adds, removes or
-- moves an order. The counts of all orders are spread over 16 rows per status (by order id), so that
-- concurrent placements do not queue on one row; a user's own row is touched only by that user's orders.
CREATE TABLE order_counts (
  shard  smallint NOT NULL,
  status text NOT NULL,
  count  bigint NOT NULL,
  PRIMARY KEY (status, shard)
);

CREATE TABLE order_user_counts (
  user_id bigint NOT NULL,
  status  text NOT NULL,
  count   bigint NOT NULL,
  PRIMARY KEY (user_id, status)
);

CREATE FUNCTION order_counts_add(order_id bigint, owner bigint, order_status text, delta integer)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO order_counts (shard, status, count) VALUES ((order_id % 16)::smallint, order_status, delta)
    ON CONFLICT (status, shard) DO UPDATE SET count = order_counts.count + EXCLUDED.count;
  INSERT INTO order_user_counts (user_id, status, count) VALUES (owner, order_status, delta)
    ON CONFLICT (user_id, status) DO UPDATE SET count = order_user_counts.count + EXCLUDED.count;
$$;

CREATE FUNCTION order_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM order_counts_add(OLD.id, OLD.user_id, OLD.status, -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM order_counts_add(NEW.id, NEW.user_id, NEW.status, 1);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER order_counts_on_insert_or_delete AFTER INSERT OR DELETE ON orders
  FOR EACH ROW EXECUTE FUNCTION order_counts_follow();
CREATE TRIGGER order_counts_on_move AFTER UPDATE OF status, user_id ON orders
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.user_id IS DISTINCT FROM NEW.user_id)
  EXECUTE FUNCTION order_counts_follow();

-- The orders placed before this migration (one pass over the table).
INSERT INTO order_counts (shard, status, count)
SELECT (id % 16)::smallint, status, count(*) FROM orders GROUP BY 1, 2;
INSERT INTO order_user_counts (user_id, status, count)
SELECT user_id, status, count(*) FROM orders GROUP BY 1, 2;
