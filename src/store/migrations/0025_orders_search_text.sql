-- Text search (`q`) by index, so that a rare or absent term answers in milliseconds at any size: one search
-- column per order (its note and the names of its items' products, one per line), kept by the statements
-- that place an order and change its note, and a trigram index over it (pg_trgm serves ILIKE '%term%' for
-- terms of three or more characters). Products are never renamed, so the names stay those of the products.
--
-- pg_trgm is created in the fixed schema `public` (a trusted extension: no superuser needed), not in the
-- schema on the search path, which the tests drop with CASCADE; where it was installed before, in any
-- schema, that one serves.
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;

ALTER TABLE orders ADD COLUMN search_text text NOT NULL DEFAULT '';

-- The orders placed before this migration (one pass over the table).
UPDATE orders o
   SET search_text = concat_ws(E'\n', o.note,
         (SELECT string_agg(p.name, E'\n' ORDER BY i.id)
            FROM order_items i JOIN products p ON p.id = i.product_id WHERE i.order_id = o.id));

DO $$
DECLARE
  trgm_schema text;
BEGIN
  SELECT n.nspname INTO trgm_schema
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  EXECUTE format('CREATE INDEX IF NOT EXISTS orders_search_trgm ON orders USING gin (search_text %I.gin_trgm_ops)',
                 trgm_schema);
END $$;
