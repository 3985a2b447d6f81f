/**
 * Event wake-ups over Redis pub/sub (src/redis/redis-wakeups.ts): one message per transaction that wrote
 * events, sent once it committed and never for a rollback; while Redis is away writes go on, the outage is
 * logged once and reported, and when Redis returns the feed looks at once for what it missed (its poll is
 * set to a minute here, so what arrives in the test came by a wake-up). Needs REDIS_TEST_URL.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { NewEvent, StoredEvent } from '../../src/core/shared/events.js';
import { createRedisWakeups } from '../../src/redis/redis-wakeups.js';
import { createEventFeed } from '../../src/store/event-feed.js';
import type { EventWakeups } from '../../src/store/event-wakeups.js';
import { writeEvents } from '../../src/store/outbox.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { requires } from '../support/requires.js';
import { openTcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/until.js';

const redisUrl = process.env.REDIS_TEST_URL;
const stockEvent = (sku: string): NewEvent => ({
  type: 'stock.changed',
  ownerUserId: null,
  subject: `sku:${sku}`,
  data: { object: { sku } },
});

describe.runIf(requires(redisUrl, 'event wake-ups over Redis', 'set REDIS_TEST_URL'))(
  'event wake-ups over Redis',
  () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openTestDatabase();
    });
    afterAll(async () => {
      await database?.close();
    });

    /** Wake-ups on a channel of the test's own, through `url`, logging into `logs`; closed when the test ends. */
    function open(url: string, logs: Array<{ level: number; msg: string }> = []) {
      const channel = `test-events-${randomBytes(6).toString('hex')}`;
      const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
      const wakeups = createRedisWakeups({ url, channel, logger, pollMs: 60_000 });
      onTestFinished(() => wakeups.close());
      return { channel, wakeups };
    }

    /** The messages on `channel`, counted by a connection of the test's own. */
    async function messagesOn(channel: string): Promise<string[]> {
      const client = new Redis(redisUrl as string);
      onTestFinished(() => void client.disconnect());
      const messages: string[] = [];
      client.on('message', (on: string, message: string) => on === channel && messages.push(message));
      await client.subscribe(channel);
      return messages;
    }

    const write = (wakeups: EventWakeups, ...skus: string[]) =>
      database.db.transaction((tx) => writeEvents(tx, wakeups, skus.map(stockEvent)));

    it('publishes one wake-up per transaction, once it committed, and none for a rollback', async () => {
      const { channel, wakeups } = open(redisUrl as string);
      const messages = await messagesOn(channel);
      await until(() => (wakeups.degraded() === undefined ? true : undefined));
      await database.db.transaction(async (tx) => {
        await writeEvents(tx, wakeups, [stockEvent('FIRST')]);
        await writeEvents(tx, wakeups, [stockEvent('SECOND')]);
        await sleep(150);
        expect(messages).toEqual([]); // not before the commit
      });
      await until(() => (messages.length > 0 ? true : undefined));
      await expect(
        database.db.transaction(async (tx) => {
          await writeEvents(tx, wakeups, [stockEvent('ROLLED-BACK')]);
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      await sleep(150);
      expect(messages).toEqual(['']); // a wake-up carries no event
    });

    it('stays subscribed when it subscribes while its connection is still being set up', async () => {
      // ioredis writes SUBSCRIBE at once on a connection still answering its set-up commands (CLIENT SETINFO,
      // then the ready check's INFO); in subscriber mode the INFO is refused, ioredis reconnects, and having
      // never been ready it forgets the subscription: every later wake-up was lost (CI's flake on a busy
      // machine). 150 ms each way on the link holds the set-up open while the feed subscribes.
      const proxy = await openTcpProxy(redisUrl as string);
      onTestFinished(() => proxy.cut());
      proxy.fault({ kind: 'latency', ms: 150 });
      const { channel, wakeups } = open(proxy.url);
      await sleep(50); // connected to the proxy, set-up under way
      let woken = 0;
      const stop = await wakeups.listen(() => void woken++);
      onTestFinished(() => stop());
      const publisher = new Redis(redisUrl as string);
      onTestFinished(() => void publisher.disconnect());
      await until(async () => ((await publisher.pubsub('NUMSUB', channel))[1] === 1 ? true : undefined), 5_000);
      await sleep(2_500); // a reconnection (under 1 s at this latency) would be over by now
      const before = woken;
      await publisher.publish(channel, '');
      await until(() => (woken > before ? true : undefined), 3_000);
    });

    it('keeps writing while Redis is away, says so once, and catches up when it returns', async () => {
      const proxy = await openTcpProxy(redisUrl as string);
      onTestFinished(() => proxy.cut());
      const logs: Array<{ level: number; msg: string }> = [];
      const { channel, wakeups } = open(proxy.url, logs);
      // A poll of 20 s: the wake-ups, not the poll, must bring each event.
      const feed = await createEventFeed(wakeups, database.store.events, { pollMs: 20_000 });
      // What travels over Redis is a wake-up; whether the feed may read the event yet depends on every
      // transaction running on the server (commit-safe order), which other test files share. So the
      // wake-ups are counted as they arrive, and the events are awaited without a tight bound.
      let woken = 0;
      const stopCounting = await wakeups.listen(() => void woken++);
      onTestFinished(() => stopCounting());
      const wokenAfter = async (before: number) => until(() => (woken > before ? true : undefined), 5_000);
      // The feed's subscription is live once Redis counts it: a wake-up published before would be lost.
      const redis = new Redis(redisUrl as string);
      onTestFinished(() => void redis.quit());
      await until(async () => ((await redis.pubsub('NUMSUB', channel))[1] === 1 ? true : undefined), 15_000);
      onTestFinished(() => feed.close());
      const received: StoredEvent[] = [];
      const stop = new AbortController();
      onTestFinished(() => stop.abort());
      void (async () => {
        for await (const event of feed.subscribe({}, stop.signal)) received.push(event);
      })();
      // Other test files write events to the same database: only this test's own are compared.
      const ours = () =>
        received.map((event) => event.subject).filter((subject) => /^sku:(BEFORE|DURING|AFTER)$/.test(subject));
      const arrived = (sku: string) => until(() => received.find((event) => event.subject === `sku:${sku}`), 60_000);
      await until(() => (wakeups.degraded() === undefined ? true : undefined));
      let before = woken;
      await write(wakeups, 'BEFORE');
      await wokenAfter(before);
      await arrived('BEFORE');

      await proxy.cut();
      await until(() => wakeups.degraded());
      expect(wakeups.degraded()).toMatch(
        /^Redis \(REDIS_URL\) is unreachable: event wake-ups wait for the feed's poll/,
      );
      before = woken;
      await write(wakeups, 'DURING'); // the write succeeds; its wake-up is lost
      await sleep(300);
      expect(woken).toBe(before);
      expect(ours()).toEqual(['sku:BEFORE']);

      await proxy.restore();
      await wokenAfter(before); // the reconnection wakes the feed, well before its poll
      await arrived('DURING');
      await until(() => (wakeups.degraded() === undefined ? true : undefined));
      before = woken;
      await write(wakeups, 'AFTER');
      await wokenAfter(before);
      await arrived('AFTER');
      expect(ours()).toEqual(['sku:BEFORE', 'sku:DURING', 'sku:AFTER']);
      expect(logs.map((entry) => entry.msg)).toEqual([
        'Redis unreachable: event wake-ups wait for the poll until it returns',
        'Redis is back: event wake-ups travel over it again',
      ]);
    }, 240_000);
  },
);
