-- Every key of a rotation chain names the chain's first key (issue 42): the streams and subscriptions of a
-- key, and its rate budget, hold across its rotations instead of starting afresh with each successor.
-- NULL: the key begins its own chain (a key never rotated into). Keys rotated into before this release
-- are given their chain's first key here.
ALTER TABLE api_keys ADD COLUMN chain_id bigint;

WITH RECURSIVE chain(id, first) AS (
  SELECT k.id, k.id FROM api_keys k
   WHERE NOT EXISTS (SELECT 1 FROM api_keys p WHERE p.replaced_by = k.id)
  UNION ALL
  SELECT successor.id, chain.first
    FROM chain JOIN api_keys predecessor ON predecessor.id = chain.id
    JOIN api_keys successor ON successor.id = predecessor.replaced_by
)
UPDATE api_keys SET chain_id = chain.first FROM chain WHERE api_keys.id = chain.id AND chain.first <> chain.id;
