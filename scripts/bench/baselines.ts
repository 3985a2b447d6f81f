import { createServer, type Server } from 'node:http';
import http2, { type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import { serve } from '@hono/node-server';
import { createSchema, createYoga } from 'graphql-yoga';
import { Hono } from 'hono';
import pg from 'pg';
import {
  GetStockReplySchema,
  GetStockRequestSchema,
  Inventory,
  ReservationState,
  ReserveReplySchema,
  ReserveRequestSchema,
} from '../../generated/proto/inventory/v1/inventory_pb.js';
import type { Core } from '../../src/core/index.js';
import { createGrpcJsServer } from '../../src/grpc/grpc-js-server.js';
import { pgTypeParsers } from '../../src/store/database.js';

/**
 * The floors the server is compared with: the same SQL through a `pg` pool of the same size (10) and with
 * the server's type parsers (numbers, timestamps), with nothing else — no validation, auth, error mapping,
 * logging or metrics.
 */
export function baselinePool(url: string, schema: string) {
  return new pg.Pool({ connectionString: url, max: 10, types: pgTypeParsers, options: `-c search_path=${schema}` });
}

const ITEMS = 'SELECT * FROM order_items WHERE order_id = ANY($1::bigint[]) ORDER BY order_id, id';

/**
 * A bare Hono + pg server for `GET /v1/orders/{id}` and the first page of 20 orders. Its statements run
 * unnamed, as a plain pg handler's do; with `named`, each is prepared by name on each connection, as the
 * server's are (DATABASE_PREPARED_STATEMENTS), so that the database does the same work for both.
 */
export async function startBareRest(pool: pg.Pool, { named = false } = {}) {
  const query = (name: string, text: string, values: unknown[]) =>
    named ? pool.query({ name: `bare_${name}`, text, values }) : pool.query(text, values);
  const app = new Hono();
  app.get('/v1/orders/:id', async (c) => {
    const { rows } = await query('order', 'SELECT * FROM orders WHERE id = $1', [Number(c.req.param('id'))]);
    const items = await query('items', ITEMS, [rows.map((row) => row.id)]);
    return c.json({ ...rows[0], items: items.rows });
  });
  app.get('/v1/orders', async (c) => {
    const { rows } = await query(
      'page',
      'SELECT o.* FROM orders o ORDER BY o.created_at DESC, o.id DESC LIMIT $1',
      [21],
    );
    const items = await query('items', ITEMS, [rows.map((row) => row.id)]);
    return c.json({
      items: rows.slice(0, 20).map((row) => ({ ...row, items: items.rows.filter((i) => i.order_id === row.id) })),
    });
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

const stockOf = (row: Record<string, number | string>) => ({
  sku: row.sku as string,
  onHand: row.on_hand as number,
  reserved: row.reserved as number,
  available: (row.on_hand as number) - (row.reserved as number),
});

/** The statements of the store's `reserve`, in one transaction on one pooled client. */
async function reserve(pool: pg.Pool, orderId: string, sku: string, quantity: number) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const stock = (await client.query('SELECT * FROM stock WHERE sku = $1 FOR UPDATE', [sku])).rows[0];
    if (!stock) throw Object.assign(new Error('unknown SKU'), { code: grpc.status.NOT_FOUND });
    const existing = (await client.query('SELECT * FROM reservations WHERE order_id = $1 AND sku = $2', [orderId, sku]))
      .rows[0];
    let reservation = existing;
    let current = stock;
    if (!existing) {
      current = (
        await client.query(
          'UPDATE stock SET reserved = reserved + $2 WHERE sku = $1 AND on_hand - reserved >= $2 RETURNING *',
          [sku, quantity],
        )
      ).rows[0];
      reservation = (
        await client.query(
          `INSERT INTO reservations (order_id, sku, quantity, state, expires_at) VALUES ($1, $2, $3, 'HELD', $4) RETURNING *`,
          [orderId, sku, quantity, new Date(Date.now() + 600_000)],
        )
      ).rows[0];
    }
    await client.query('COMMIT');
    return create(ReserveReplySchema, {
      reservation: {
        orderId: String(reservation.order_id),
        sku,
        quantity: reservation.quantity,
        state: ReservationState.HELD,
        createdAt: timestampFromDate(reservation.created_at),
      },
      stock: stockOf(current),
      replayed: Boolean(existing),
    });
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/** A plain @grpc/grpc-js server answering `GetStock` and `Reserve` of the same proto with the same SQL. */
/** A stock row as the database would return it, for the floors that read no database. */
const CONSTANT_STOCK = { sku: 'BENCH-1', on_hand: 1000, reserved: 0 };

/** Reads a stock row, or answers a constant one when there is no pool (the libraries' own floor). */
const readStock = async (pool: pg.Pool | undefined, sku: string) =>
  pool ? (await pool.query('SELECT * FROM stock WHERE sku = $1', [sku])).rows[0] : CONSTANT_STOCK;

export async function startGrpcJsInventory(pool?: pg.Pool) {
  const unary = <I, O>(
    name: string,
    decode: (bytes: Uint8Array) => I,
    encode: (message: O) => Uint8Array,
  ): grpc.MethodDefinition<I, O> => ({
    path: `/inventory.v1.Inventory/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: () => Buffer.alloc(0),
    requestDeserialize: (bytes) => decode(bytes),
    responseSerialize: (message) => Buffer.from(encode(message)),
    responseDeserialize: () => ({}) as O,
  });
  const server = new grpc.Server();
  server.addService(
    {
      GetStock: unary(
        'GetStock',
        (bytes) => fromBinary(GetStockRequestSchema, bytes),
        (message) => toBinary(GetStockReplySchema, message),
      ),
      Reserve: unary(
        'Reserve',
        (bytes) => fromBinary(ReserveRequestSchema, bytes),
        (message) => toBinary(ReserveReplySchema, message),
      ),
    },
    {
      GetStock: (call: grpc.ServerUnaryCall<{ sku: string }, unknown>, done: grpc.sendUnaryData<unknown>) => {
        readStock(pool, call.request.sku).then(
          (row) => done(null, create(GetStockReplySchema, { stock: stockOf(row) })),
          (error) => done(error),
        );
      },
      Reserve: (
        call: grpc.ServerUnaryCall<{ orderId: string; sku: string; quantity: number }, unknown>,
        done: grpc.sendUnaryData<unknown>,
      ) => {
        if (!pool) {
          done(new Error('Reserve needs the database'));
          return;
        }
        reserve(pool, call.request.orderId, call.request.sku, call.request.quantity).then(
          (reply) => done(null, reply),
          (error) => done(error),
        );
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

/**
 * The library floor of the gRPC comparison: a bare connect-node server (no interceptors, no deadline
 * handling, no error mapping) answering `GetStock` with the same SQL. What it loses to grpc-js is
 * connect-node's own cost per call, which no handler code can win back.
 */
export async function startConnectNodeInventory(pool?: pg.Pool) {
  const server = http2.createServer(
    connectNodeAdapter({
      routes: (router) =>
        router.service(Inventory, {
          getStock: async (request) => {
            return { stock: stockOf(await readStock(pool, request.sku)) };
          },
        }),
    }),
  );
  return onLoopback(server);
}

/**
 * The grpc-js host's floor: a Connect ServiceImpl answering `GetStock` with a constant, hosted as the
 * internal port hosts the Inventory service with `GRPC_SERVER=grpc-js` (a HandlerContext per call,
 * @bufbuild/protobuf codecs), no wrappers.
 */
export async function startServiceImplOnGrpcJs() {
  const server = createGrpcJsServer({
    services: [{ service: Inventory, implementation: { getStock: async () => ({ stock: stockOf(CONSTANT_STOCK) }) } }],
  });
  const { port } = await server.listen(0, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/**
 * The library floor of the GraphQL comparison: graphql-yoga on a plain Node HTTP server with a one-field
 * schema and its defaults, answering `{ __typename }` (no Hono, no plugins, no database).
 */
export async function startBareYoga() {
  const yoga = createYoga({
    schema: createSchema({ typeDefs: 'type Query { ok: Boolean }', resolvers: { Query: { ok: () => true } } }),
    logging: false,
  });
  const server = createServer(yoga);
  return onLoopback(server);
}

/** The product's GraphQL parts, from the build under test (scratch.ts `importBuild`). */
export interface GraphQLParts {
  resolvers: typeof import('../../src/graphql/resolvers.js')['resolvers'];
  createLoaders: typeof import('../../src/graphql/context.js')['createLoaders'];
  callerFromAuthorization: typeof import('../../src/http/bearer.js')['callerFromAuthorization'];
  TimeBudget: typeof import('../../src/graphql/use-time-budget.js')['TimeBudget'];
}

/**
 * GraphQL's own floor: a plain graphql-yoga server (its defaults, no plugin) with the product's schema,
 * resolvers, per-request DataLoaders and core (so the same SQL), and none of the product's edge: no
 * limits, rate budget, persisted operations, time-out, metrics, deprecation signals, scopes, brownouts,
 * error masking or graphql-jit. Authentication stays, since the resolvers need a caller.
 */
export async function startPlainYoga(core: Core, parts: GraphQLParts, typeDefs: string) {
  const yoga = createYoga({
    schema: createSchema({ typeDefs, resolvers: parts.resolvers as never }),
    logging: false,
    async context({ request }: { request: Request }) {
      const found = await parts.callerFromAuthorization(core, request.headers.get('authorization'));
      const caller = found === 'invalid' ? null : found;
      return { core, caller, loaders: parts.createLoaders(core, caller), timeBudget: new parts.TimeBudget(5000) };
    },
  });
  return onLoopback(createServer(yoga));
}

/**
 * What plain HTTP costs on its own: a Node HTTP server that reads a POST body and answers the JSON a bare
 * Yoga server answers `{ __typename }` with. Bare Yoga's cost minus this one is Yoga's own cost; the REST
 * page pays the HTTP part too.
 */
export async function startBareHttp() {
  const answer = JSON.stringify({ data: { __typename: 'Query' } });
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end(answer);
    });
  });
  return onLoopback(server);
}

/** Listens on a free loopback port; the server's URL, and a close that resolves once it has closed. */
async function onLoopback(server: Server | Http2Server) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
