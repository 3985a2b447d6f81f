-- No blind spots in deprecation usage: a day counts as measured for an item only when every instance that
-- served that day flushed its usage for it at least once and no instance dropped a use of that item.

-- deprecation_recorders becomes the instances' heartbeats, per instance and UTC day: an instance registers
-- when it starts serving (flushes 0, no last_flush_at yet) and every flush notes it again, for each day the
-- flush completes (one just after midnight also completes the day before). first_seen and last_seen are the
-- first and last registration or flush that noted it for the day. An instance killed after a flush still
-- counts as flushed; one that served but never flushed for a day leaves that day unmeasured. Rows written
-- before this migration were all flushes. Instances of the previous release, during a rolling deploy, keep
-- writing flushes without first_seen and last_seen, hence nullable.
ALTER TABLE deprecation_recorders ALTER COLUMN last_flush_at DROP NOT NULL;
ALTER TABLE deprecation_recorders ADD COLUMN first_seen timestamptz;
ALTER TABLE deprecation_recorders ADD COLUMN last_seen timestamptz;
UPDATE deprecation_recorders SET first_seen = last_flush_at, last_seen = last_flush_at;

-- Uses a recorder dropped because its buffer was full (USAGE_MAX_ENTRIES distinct entries between
-- flushes), per item, UTC day and instance, written with the flush (additive, count = count + …). Such a day
-- is incomplete for that item: the gate does not take it for a quiet one.
CREATE TABLE deprecation_usage_dropped (
  item          text NOT NULL,
  day           date NOT NULL,
  instance      text NOT NULL,
  count         bigint NOT NULL CHECK (count > 0),
  last_flush_at timestamptz NOT NULL,
  PRIMARY KEY (item, day, instance)
);
