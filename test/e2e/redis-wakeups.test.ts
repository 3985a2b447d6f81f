/**
 * Event wake-ups over Redis between instances (docs/streams.md, "Fan-out across instances"): with
 * REDIS_URL and a PostgreSQL server, a `graphql-sse` subscriber on instance A sees a change made through
 * instance B, woken over Redis — A holds no LISTEN connection and the feeds' poll is a minute, so nothing
 * else could have woken it; while Redis is away writes and streams go on (the poll delivers) and /health
 * names the degradation until Redis returns. On the embedded database, Redis carries no wake-ups and one
 * instance's subscribers are served as before. Every REST answer is checked against contracts/openapi.yaml.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { pino } from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/main.js';
import { checkedFetch } from '../support/contract.js';
import { embeddedDataDir, serverDatabase, testDatabaseUrl } from '../support/database.js';
import { noteChanged, subscribeToOrder } from '../support/order-subscription.js';
import { requires } from '../support/requires.js';
import { openTcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/until.js';

const redisUrl = process.env.REDIS_TEST_URL;
const ADMIN_KEY = 'redis-wakeups-admin-key-0123456789';
const A_MINUTE = '60000';

/** Starts an instance with `env` (a database, Redis settings); closed when the test ends. */
async function start(env: Record<string, string>): Promise<RunningServer> {
  const config = loadConfig({
    ...{ PORT: '0', HOST: '127.0.0.1', GRPC_PORT: '0', LOG_LEVEL: 'silent', SEED_DEMO: 'false' },
    ...{ RATE_LIMIT_ENABLED: 'false', ADMIN_API_KEY: ADMIN_KEY },
    ...env,
  });
  const server = await startServer(config, pino({ level: 'silent' }));
  onTestFinished(() => server.close());
  return server;
}

async function call<T = { id: number }>(server: RunningServer, path: string, method = 'GET', body?: unknown) {
  const seen = await checkedFetch(server.httpUrl, path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: seen.status, body: seen.body as T };
}

/** An order placed through `server`. */
async function placeOrder(server: RunningServer): Promise<number> {
  const sku = `WAKE-${randomBytes(3).toString('hex')}`;
  const product = await call(server, '/v1/products', 'POST', { name: 'Bell', sku, price: 5, stock: 9 });
  const address = { zipCode: '1', line1: 'Main St' };
  const email = `${sku.toLowerCase()}@example.com`;
  const user = await call(server, '/v1/users', 'POST', { name: 'wren', email, address });
  const items = [{ productId: product.body.id, quantity: 1 }];
  return (await call(server, '/v1/orders', 'POST', { userId: user.body.id, items })).body.id;
}

const changeNote = async (server: RunningServer, orderId: number, note: string) =>
  expect((await call(server, `/v1/orders/${orderId}`, 'PATCH', { note })).status).toBe(200);

/** A Redis connection of the test's own (closed when the test ends). */
function redis(): Redis {
  const client = new Redis(redisUrl as string);
  onTestFinished(() => void client.disconnect());
  return client;
}

const subscribers = async (channel: string) => (await redis().pubsub('NUMSUB', channel))[1];

/** The sessions of the test server listening on `channel`. */
async function listeners(channel: string): Promise<number> {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM pg_stat_activity WHERE query = $1`,
      [`LISTEN ${pg.escapeIdentifier(channel)}`],
    );
    return rows[0]?.count ?? 0;
  } finally {
    await client.end();
  }
}

describe.runIf(
  requires(redisUrl && testDatabaseUrl, 'event wake-ups over Redis', 'set REDIS_TEST_URL and TEST_DATABASE_URL'),
)('event wake-ups over Redis between instances', () => {
  /** A fresh schema, and the Redis settings of its instances; the database is dropped when the test ends. */
  function sharedDatabase() {
    const database = serverDatabase('redis-wakeups');
    onTestFinished(() => database.remove());
    const base = `test-events-${randomBytes(6).toString('hex')}`;
    const schema = database.env.DATABASE_SCHEMA as string;
    return {
      env: { ...database.env, REDIS_URL: redisUrl as string, EVENTS_REDIS_CHANNEL: base },
      // Scoped per schema, as the NOTIFY channel is (Database.channel).
      redisChannel: `${base}_${schema}`,
      notifyChannel: `order_api_events_${schema}`,
    };
  }

  it('shows a subscriber on A a change made through B, woken over Redis with no LISTEN', async () => {
    const { env, redisChannel, notifyChannel } = sharedDatabase();
    const [a, b] = [await start({ ...env, EVENT_FEED_POLL_MS: A_MINUTE }), await start(env)];
    const messages: string[] = [];
    const counter = redis();
    counter.on('message', (channel: string, message: string) => channel === redisChannel && messages.push(message));
    await counter.subscribe(redisChannel);
    expect(await subscribers(redisChannel)).toBe(3); // A, B and the counter
    expect(await listeners(notifyChannel)).toBe(0);
    // The same query sees the LISTEN of an instance without Redis over the same schema.
    const { REDIS_URL: _none, ...withoutRedis } = env;
    await start(withoutRedis);
    expect(await listeners(notifyChannel)).toBe(1);

    const orderId = await placeOrder(b);
    const subscription = await subscribeToOrder(a.httpUrl, ADMIN_KEY, orderId);
    onTestFinished(() => subscription.close());
    const before = messages.length;
    await changeNote(b, orderId, 'via B');
    expect(await subscription.updated).toEqual(noteChanged(orderId, 'via B'));
    expect(messages.length).toBeGreaterThan(before);
  });

  it('keeps writes and streams going while Redis is away, and says so until it returns', async () => {
    const { env } = sharedDatabase();
    const proxy = await openTcpProxy(redisUrl as string);
    onTestFinished(() => proxy.cut());
    const server = await start({ ...env, REDIS_URL: proxy.url, EVENT_FEED_POLL_MS: '500' });
    const degraded = async () =>
      (await call<{ degraded?: Record<string, string> }>(server, '/health')).body.degraded?.eventWakeups;
    await until(async () => ((await degraded()) === undefined ? true : undefined));
    const orderId = await placeOrder(server);
    const subscription = await subscribeToOrder(server.httpUrl, ADMIN_KEY, orderId);
    onTestFinished(() => subscription.close());

    await proxy.cut();
    expect(await until(degraded)).toMatch(
      /^Redis \(REDIS_URL\) is unreachable: event wake-ups wait for the feed's poll/,
    );
    await changeNote(server, orderId, 'while Redis is away');
    expect(await subscription.updated).toEqual(noteChanged(orderId, 'while Redis is away'));
    await proxy.restore();
    await until(async () => ((await degraded()) === undefined ? true : undefined));
  });
});

describe.runIf(requires(redisUrl, 'the embedded database with REDIS_URL', 'set REDIS_TEST_URL'))(
  'the embedded database with REDIS_URL',
  () => {
    it('serves its own subscribers by in-process notifications, not over Redis', async () => {
      const data = embeddedDataDir('redis-wakeups');
      onTestFinished(() => data.remove());
      const channel = `test-events-${randomBytes(6).toString('hex')}`;
      const server = await start({
        ...{ DATA_DIR: data.dir, REDIS_URL: redisUrl as string },
        ...{ EVENTS_REDIS_CHANNEL: channel, EVENT_FEED_POLL_MS: A_MINUTE },
      });
      const orderId = await placeOrder(server);
      const subscription = await subscribeToOrder(server.httpUrl, ADMIN_KEY, orderId);
      onTestFinished(() => subscription.close());
      await changeNote(server, orderId, 'embedded');
      expect(await subscription.updated).toEqual(noteChanged(orderId, 'embedded'));
      expect(await subscribers(channel)).toBe(0);
    });
  },
);
