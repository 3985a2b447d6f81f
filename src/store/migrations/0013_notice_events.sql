-- A recorded deprecation notice names the `deprecation.announced` event it was delivered as (null for the
-- notices recorded before the server sent them as events).
ALTER TABLE deprecation_notices ADD COLUMN event_id text;
