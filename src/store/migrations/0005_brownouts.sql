-- Brownout windows (spec §9.2 rule 8): short, announced periods during which a deprecated item of the
-- registry is blocked, to surface callers that were never measured. Every instance reads the windows
-- from here, so all of them block and announce the same ones. A cancelled window keeps its row.
CREATE TABLE brownouts (
  id           bigserial PRIMARY KEY,
  item         text NOT NULL,
  starts_at    timestamptz NOT NULL,
  ends_at      timestamptz NOT NULL CHECK (ends_at > starts_at),
  note         text,
  scheduled_at timestamptz NOT NULL,
  scheduled_by bigint,
  cancelled_at timestamptz,
  cancelled_by bigint
);
CREATE INDEX brownouts_item_ends ON brownouts (item, ends_at);
CREATE INDEX brownouts_ends ON brownouts (ends_at);
