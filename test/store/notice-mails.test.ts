/**
 * The outbox of notice e-mails (PGlite by default, PostgreSQL with TEST_DATABASE_URL): a brownout queues one
 * mail per recent caller in the transaction of its events (neither commits without the other); the mail
 * dispatcher retries a failed mail per its schedule and then gives up, gives up at once on a permanent
 * refusal, records each outcome, and sends each mail once when two instances dispatch the same outbox.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Mail, Mailer } from '../../src/core/ports/index.js';
import { createMailDispatcher } from '../../src/mail/mail-dispatcher.js';
import { writeNoticeEvents } from '../../src/store/notice-outbox.js';
import { sqlOutbox } from '../../src/store/outbox.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database?.close());

interface MailRow {
  recipient: string;
  state: string;
  attempts: number;
  last_error: string | null;
  sent_at: Date | null;
  body: string;
}
const mailRows = () =>
  database.db.query<MailRow>(
    'SELECT recipient, state, attempts, last_error, sent_at, body FROM notice_mails ORDER BY recipient',
  );

/** A user with a key that used `item` today (`kind` of use). */
async function caller(name: string, item: string, kind: 'use' | 'replacement' = 'use') {
  const { store } = database;
  const user = await store.users.insert({
    ...{ name, email: `${name}@mails.example.com`, phone: null, address: null, nickname: null },
    marketingAgreed: false,
  });
  if (user === 'email-taken') throw new Error('fresh database');
  const key = await store.apiKeys.insert({ userId: user.id, role: 'customer', keyHash: randomBytes(32), scopes: [] });
  const at = new Date();
  const day = at.toISOString().slice(0, 10);
  const use = { item, day, apiKeyId: key.id, client: 'test/1', kind, count: 1, firstSeen: at, lastSeen: at };
  await store.usage.add([use], { instance: 'test', at });
  return { userId: user.id, keyId: key.id };
}

/** Queues one notice mail per address, each with an event of its own, as a notice's transaction does. */
function queue(addresses: string[]): Promise<void> {
  const { db } = database;
  const outbox = sqlOutbox(db);
  const owners = addresses.map((email, index) => ({ userId: 9000 + index, email }));
  const events = outbox.deprecationAnnounced(
    'rest.mailed',
    { item: 'rest.mailed' },
    owners.map((owner) => owner.userId),
  );
  return db.transaction(async (tx) => {
    await writeNoticeEvents(tx, outbox.wakeups, events, owners, (eventId) => ({ subject: 'notice', text: eventId }));
  });
}

/** A dispatcher over the test outbox with this mailer, retrying at once `retries` times; woken by hand. */
const dispatcher = (mailer: Mailer, retries = 0) =>
  createMailDispatcher({
    store: database.store.noticeMails,
    mailer,
    schedule: Array.from({ length: retries }, () => 0),
    pollMs: 60_000,
    leaseMs: 10_000,
    attemptTimeoutMs: 2000,
    onError: (error) => {
      throw error;
    },
  });

/** A mailer that fails with `error` (an Error with this message and SMTP reply code) the first `failures` times. */
function flakyMailer(failures: number, error: { message: string; responseCode?: number }) {
  const sent: Mail[] = [];
  let calls = 0;
  const mailer: Mailer = {
    async send(mail) {
      calls += 1;
      if (calls <= failures) throw Object.assign(new Error(error.message), error);
      sent.push(mail);
    },
  };
  return { mailer, sent, calls: () => calls };
}

describe('the outbox of notice mails', () => {
  // Each test dispatches only its own mails.
  beforeEach(async () => {
    await database.db.exec('DELETE FROM notice_mails');
  });

  it('queues a mail per recent caller in the transaction of the brownout events, and none without them', async () => {
    const { db, store } = database;
    const ann = await caller('ann', 'rest.browned');
    await caller('bo', 'rest.browned');
    await caller('cy', 'rest.browned', 'replacement');
    await caller('di', 'rest.other');
    const window = {
      item: 'rest.browned',
      startsAt: new Date('2026-12-10T10:00:00Z'),
      endsAt: new Date('2026-12-10T10:30:00Z'),
      note: null,
      scheduledAt: new Date(),
      scheduledBy: ann.userId,
    };
    const compose = (eventId: string) => ({ subject: 'brownout', text: `Event ${eventId}.` });
    await store.brownouts.schedule(window, compose);
    const events = await db.query<{ id: string }>(
      `SELECT id FROM events WHERE type = 'brownout.scheduled' ORDER BY id`,
    );
    expect(events).toHaveLength(2);
    const rows = await mailRows();
    expect(rows.map((row) => [row.recipient, row.state, row.attempts])).toEqual([
      ['ann@mails.example.com', 'pending', 0],
      ['bo@mails.example.com', 'pending', 0],
    ]);
    expect(rows.map((row) => row.body.match(/evt_\w+/)?.[0]).sort()).toEqual(events.map((event) => event.id).sort());

    // A mail that cannot be queued takes its events and the window with it.
    await db.exec(`CREATE FUNCTION refuse_mail() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'mail outbox down'; END $$ LANGUAGE plpgsql;
                   CREATE TRIGGER refuse_mail BEFORE INSERT ON notice_mails FOR EACH ROW EXECUTE FUNCTION refuse_mail();`);
    const later = { ...window, startsAt: new Date('2026-12-11T10:00:00Z'), endsAt: new Date('2026-12-11T10:30:00Z') };
    await expect(store.brownouts.schedule(later, compose)).rejects.toThrow(/mail outbox down/);
    await db.exec('DROP TRIGGER refuse_mail ON notice_mails; DROP FUNCTION refuse_mail()');
    expect(await db.query(`SELECT id FROM events WHERE type = 'brownout.scheduled'`)).toHaveLength(2);
    expect(await store.brownouts.list({ item: 'rest.browned', endedAfter: new Date(0) })).toHaveLength(1);
    // Without a composer (no SMTP_URL) nothing is queued.
    await store.brownouts.schedule(later);
    expect(await mailRows()).toHaveLength(2);
  });

  it('retries a failed mail per the schedule, then gives up, recording each outcome', async () => {
    await queue(['flaky@mails.example.com']);
    const refused = { message: 'connect ECONNREFUSED 127.0.0.1:2525' };
    const down = flakyMailer(Number.POSITIVE_INFINITY, refused);
    const mails = dispatcher(down.mailer, 2);
    for (let round = 0; round < 5; round++) await mails.wake();
    expect(down.calls()).toBe(3);
    expect(await mailRows()).toEqual([
      expect.objectContaining({ state: 'failed', attempts: 3, last_error: refused.message, sent_at: null }),
    ]);

    await queue(['late@mails.example.com']);
    const comesUp = flakyMailer(1, refused);
    const retrying = dispatcher(comesUp.mailer, 2);
    await retrying.wake();
    expect(await mailRows()).toContainEqual(expect.objectContaining({ state: 'pending', attempts: 1 }));
    await retrying.wake();
    expect(comesUp.sent.map((mail) => mail.to)).toEqual(['late@mails.example.com']);
    const [sent] = (await mailRows()).filter((row) => row.recipient === 'late@mails.example.com');
    expect(sent).toMatchObject({ state: 'succeeded', attempts: 2, last_error: null });
    expect(sent?.sent_at).toBeInstanceOf(Date);
  });

  it('gives up at once when the SMTP server refuses for good (5xx), not on a temporary 4xx', async () => {
    await queue(['nobody@mails.example.com']);
    const refusing = flakyMailer(1, { message: '550 5.1.1 mailbox unavailable', responseCode: 550 });
    const mails = dispatcher(refusing.mailer, 3);
    await mails.wake();
    await mails.wake();
    expect(refusing.calls()).toBe(1);
    expect(await mailRows()).toEqual([expect.objectContaining({ state: 'failed', attempts: 1 })]);

    await queue(['busy@mails.example.com']);
    const busy = flakyMailer(1, { message: '451 4.3.0 try again later', responseCode: 451 });
    const retrying = dispatcher(busy.mailer, 3);
    await retrying.wake();
    await retrying.wake();
    expect(busy.sent.map((mail) => mail.to)).toEqual(['busy@mails.example.com']);
  });

  it('sends each mail once when two instances dispatch the same outbox at once', async () => {
    const addresses = Array.from({ length: 12 }, (_, index) => `m${String(index).padStart(2, '0')}@mails.example.com`);
    await queue(addresses);
    const sent: string[] = [];
    const slow: Mailer = {
      async send(mail) {
        await sleep(20);
        sent.push(mail.to);
      },
    };
    const [a, b] = [dispatcher(slow), dispatcher(slow)];
    await Promise.all([a.wake(), b.wake()]);
    expect(sent.sort()).toEqual(addresses);
    expect((await mailRows()).every((row) => row.state === 'succeeded' && row.attempts === 1)).toBe(true);
    // A claim still leased is not taken by another instance.
    await queue(['leased@mails.example.com']);
    expect(await database.store.noticeMails.claimDue(5, 60_000)).toHaveLength(1);
    expect(await database.store.noticeMails.claimDue(5, 60_000)).toEqual([]);
  });
});
