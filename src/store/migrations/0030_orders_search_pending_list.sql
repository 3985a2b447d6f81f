-- The trigram index (migration 0025) takes new orders into its pending list (GIN's fast update) and every
-- search reads that list whole. At the default 4 MB limit that is up to 512 pages, about 3 ms on each
-- search however rare its term: a search after a few hundred placements cost ten times one after the
-- list was merged. At the least limit (64 kB, 8 pages) a search reads at most those; a placement then
-- merges the list more often, in smaller batches: measured at 0.97 of the insert statement's throughput
-- (fast update off entirely: 0.84). docs/benchmarks.md, "Order list at 10 million orders".
ALTER INDEX orders_search_trgm SET (gin_pending_list_limit = 64);
SELECT gin_clean_pending_list('orders_search_trgm'::regclass);
