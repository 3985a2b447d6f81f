-- The Order API schema. PostgreSQL 15 syntax (PGlite is newer; the CI server is 15).
-- Money is integer minor units; timestamps are timestamptz truncated to milliseconds so that keyset
-- cursors (which carry JavaScript millisecond times) never skip or repeat a row.

CREATE TABLE settings (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE users (
  id               bigserial PRIMARY KEY,
  name             text NOT NULL,
  email            text NOT NULL,
  phone            text,
  address          jsonb,
  nickname         text,
  marketing_agreed boolean NOT NULL DEFAULT false,
  created_at       timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  last_login_at    timestamptz,
  version          integer NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE INDEX users_created_at_id ON users (created_at, id);
CREATE INDEX users_name_id ON users (name, id);

CREATE TABLE api_keys (
  id         bigserial PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role       text NOT NULL CHECK (role IN ('admin', 'customer')),
  key_hash   bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  revoked_at timestamptz
);
CREATE INDEX api_keys_user_id ON api_keys (user_id);

CREATE TABLE products (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL,
  image_url   text,
  sku         text NOT NULL UNIQUE,
  price_minor bigint NOT NULL CHECK (price_minor >= 0),
  created_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);
CREATE INDEX products_name_id ON products (name, id);

-- Stock per SKU; the CHECKs are the last line of defence against over-reservation.
CREATE TABLE stock (
  sku      text PRIMARY KEY,
  on_hand  integer NOT NULL DEFAULT 0 CHECK (on_hand >= 0),
  reserved integer NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  CHECK (reserved <= on_hand)
);

-- One reservation per (order, SKU). HELD reservations whose order never appeared expire (expires_at);
-- the order's transaction clears expires_at.
CREATE TABLE reservations (
  order_id   bigint NOT NULL,
  sku        text NOT NULL REFERENCES stock (sku),
  quantity   integer NOT NULL CHECK (quantity > 0),
  state      text NOT NULL CHECK (state IN ('HELD', 'RELEASED', 'CONSUMED')),
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  expires_at timestamptz,
  PRIMARY KEY (order_id, sku)
);
CREATE INDEX reservations_expiring ON reservations (expires_at) WHERE state = 'HELD' AND expires_at IS NOT NULL;

CREATE TABLE orders (
  id               bigserial PRIMARY KEY,
  user_id          bigint NOT NULL REFERENCES users (id),
  status           text NOT NULL CHECK (status IN ('PENDING', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELED')),
  amount_minor     bigint NOT NULL CHECK (amount_minor >= 0),
  shipping_address jsonb NOT NULL,
  note             text,
  coupon_code      text,
  created_at       timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at       timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  version          integer NOT NULL DEFAULT 1
);
-- Keyset paging for every whitelisted sort, and the filters that narrow them.
CREATE INDEX orders_created_at_id ON orders (created_at, id);
CREATE INDEX orders_amount_id ON orders (amount_minor, id);
CREATE INDEX orders_user_created_at_id ON orders (user_id, created_at, id);
CREATE INDEX orders_status_created_at_id ON orders (status, created_at, id);

CREATE TABLE order_items (
  id               bigserial PRIMARY KEY,
  order_id         bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  product_id       bigint NOT NULL REFERENCES products (id),
  sku              text NOT NULL,
  quantity         integer NOT NULL CHECK (quantity > 0),
  unit_price_minor bigint NOT NULL CHECK (unit_price_minor >= 0),
  amount_minor     bigint NOT NULL CHECK (amount_minor >= 0)
);
CREATE INDEX order_items_order_id ON order_items (order_id, id);

CREATE TABLE shipments (
  id              bigserial PRIMARY KEY,
  order_id        bigint NOT NULL UNIQUE REFERENCES orders (id) ON DELETE CASCADE,
  status          text NOT NULL CHECK (status IN ('PREPARING', 'SHIPPED', 'DELIVERED')),
  carrier         text,
  tracking_number text,
  shipped_at      timestamptz,
  delivered_at    timestamptz
);

CREATE TABLE cancellations (
  id           bigserial PRIMARY KEY,
  order_id     bigint NOT NULL UNIQUE REFERENCES orders (id) ON DELETE CASCADE,
  reason       text,
  refund_minor bigint NOT NULL CHECK (refund_minor >= 0),
  created_at   timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);

CREATE TABLE order_drafts (
  id           bigserial PRIMARY KEY,
  user_id      bigint NOT NULL REFERENCES users (id),
  items        jsonb NOT NULL,
  amount_minor bigint NOT NULL,
  status       text NOT NULL CHECK (status IN ('OPEN', 'ORDERED')),
  order_id     bigint REFERENCES orders (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);

CREATE TABLE ratings (
  product_id bigint NOT NULL REFERENCES products (id) ON DELETE CASCADE,
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  score      smallint NOT NULL CHECK (score BETWEEN 1 AND 5),
  comment    text,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  PRIMARY KEY (product_id, user_id)
);

-- Idempotency keys per caller: the first request claims the key (IN_PROGRESS), its result is stored
-- transport-neutrally when it completes, and rows older than 24 hours no longer count.
CREATE TABLE idempotency_keys (
  caller      text NOT NULL,
  key         text NOT NULL,
  operation   text NOT NULL,
  fingerprint text NOT NULL,
  state       text NOT NULL CHECK (state IN ('IN_PROGRESS', 'COMPLETED')),
  result      jsonb,
  created_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  PRIMARY KEY (caller, key)
);
