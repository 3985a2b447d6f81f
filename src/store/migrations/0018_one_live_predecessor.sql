-- A key has at most one live predecessor (issue 42): rotations chained within their overlaps had left
-- several older keys working, each with a full rate budget. A key whose successor was itself rotated is
-- two or more steps back along its chain: it ends now. The newest key and the one it replaced keep their
-- overlap.
UPDATE api_keys AS older
   SET expires_at = date_trunc('milliseconds', now())
 WHERE older.revoked_at IS NULL
   AND (older.expires_at IS NULL OR older.expires_at > now())
   AND EXISTS (
     SELECT 1 FROM api_keys AS successor
      WHERE successor.id = older.replaced_by AND successor.replaced_by IS NOT NULL
   );
