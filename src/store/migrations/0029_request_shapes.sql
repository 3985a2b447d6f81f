-- What callers really send, per caller and UTC day, in every protocol (docs/decisions.md §13): the record
-- that impact analysis reads to name who a contract change would break. A shape is a name, never a value:
--   rest     `GET /v1/orders`, `GET /v1/orders query:minAmount`, `GET /v1/orders query:status=PAID`,
--            `POST /v1/orders body:items[].sku`, `POST /v1/orders schema:PlaceOrder.items`, `… fields:*`
--   graphql  `sig:<sha256>` (the operation's signature, text in request_shape_signatures), and the input
--            members and enum values sent through variables (`OrderFilter.minAmount`, `OrderStatus.PAID`)
--   grpc     `inventory.v1.Inventory/Reserve`, `… codec:json`, `inventory.v1.ReserveRequest.sku`,
--            `inventory.v1.ReserveRequest#9` (an unknown field number)
-- Written in additive batches by every instance (count = count + EXCLUDED.count), like deprecation_usage,
-- but by its own recorder: a flood of distinct shapes never drops a deprecation use. Kept
-- SHAPES_RETENTION_DAYS (default 90); deprecation usage keeps its own evidence window.
CREATE TABLE request_shapes (
  protocol   text NOT NULL,
  shape      text NOT NULL,
  day        date NOT NULL,
  api_key_id bigint NOT NULL,
  client     text NOT NULL,
  count      bigint NOT NULL CHECK (count > 0),
  first_seen timestamptz NOT NULL,
  last_seen  timestamptz NOT NULL,
  PRIMARY KEY (protocol, shape, day, api_key_id, client)
);
CREATE INDEX request_shapes_day ON request_shapes (day);
CREATE INDEX request_shapes_key ON request_shapes (api_key_id, day);

-- A GraphQL operation's signature, stored once by its hash (literals as typed placeholders, aliases
-- dropped, fields and arguments sorted, whitespace removed). Read by impact analysis only: it is never
-- executed (persisted operations stay the only registered ones). At most SHAPES_MAX_SIGNATURES rows, and
-- SHAPES_MAX_SIGNATURES_PER_KEY first sent by one key (api_key_id; 0: no key), so one key cannot fill it.
CREATE TABLE request_shape_signatures (
  hash       text PRIMARY KEY,
  signature  text NOT NULL,
  api_key_id bigint NOT NULL,
  first_seen timestamptz NOT NULL
);
CREATE INDEX request_shape_signatures_key ON request_shape_signatures (api_key_id);

-- The shape recorders' heartbeats and drops, apart from deprecation usage's: a day's shapes count as
-- measured when every instance that served it flushed for it; drops are per protocol, day and instance.
CREATE TABLE request_shape_recorders (
  instance   text NOT NULL,
  day        date NOT NULL,
  flushes    bigint NOT NULL,
  first_seen timestamptz NOT NULL,
  last_seen  timestamptz NOT NULL,
  PRIMARY KEY (instance, day)
);

CREATE TABLE request_shapes_dropped (
  protocol text NOT NULL,
  day      date NOT NULL,
  instance text NOT NULL,
  count    bigint NOT NULL CHECK (count > 0),
  PRIMARY KEY (protocol, day, instance)
);
