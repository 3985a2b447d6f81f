-- Uses of deprecated and watched items (generated/deprecations.json) per caller and day, written in
-- batches by every instance with additive upserts (count = count + EXCLUDED.count), so instances never
-- overwrite each other. api_key_id 0 is the anonymous caller; client is `name/version` from User-Agent,
-- `unknown`, or `other` once a key has more distinct clients than the cap. kind is `use` (the item) or
-- `replacement` (its replacement, for watched fields); further kinds may be added (e.g. brownout hits).
CREATE TABLE deprecation_usage (
  item       text NOT NULL,
  day        date NOT NULL,
  api_key_id bigint NOT NULL,
  client     text NOT NULL,
  kind       text NOT NULL DEFAULT 'use',
  count      bigint NOT NULL CHECK (count > 0),
  first_seen timestamptz NOT NULL,
  last_seen  timestamptz NOT NULL,
  PRIMARY KEY (item, day, api_key_id, client, kind)
);
CREATE INDEX deprecation_usage_day ON deprecation_usage (day);

-- Every flush of every instance, per day, even with nothing to add: a day with zero uses counts as
-- measured only if recorders were running (the evidence a removal needs).
CREATE TABLE deprecation_recorders (
  instance      text NOT NULL,
  day           date NOT NULL,
  flushes       bigint NOT NULL,
  last_flush_at timestamptz NOT NULL,
  PRIMARY KEY (instance, day)
);

-- Notices sent to callers of an item: who (a key), when, by which channel.
CREATE TABLE deprecation_notices (
  id          bigserial PRIMARY KEY,
  item        text NOT NULL,
  api_key_id  bigint NOT NULL,
  channel     text NOT NULL,
  note        text,
  notified_at timestamptz NOT NULL,
  recorded_by bigint,
  recorded_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX deprecation_notices_item ON deprecation_notices (item, api_key_id);
