/**
 * Notices that reach callers, through the outbox. Uma (two keys) and Cal used the deprecated item, Ben only
 * another one. Scheduling a brownout sends a signed `brownout.scheduled` to the endpoints of Uma and Cal
 * (not Ben's) and mails them through a local SMTP server; a deprecation notice naming no keys goes to every
 * key of the last 30 days (one event per owner) and the notices report shows each delivery as it went; an
 * item nobody used notifies nobody; a mail whose SMTP server is down is retried until it is up; a notice
 * committed while no server runs (the brownouts CLI) is mailed by the next start. One fixture server
 * (GET /v1/products deprecated) over one database.
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch } from '../support/contract.js';
import { serverDatabase } from '../support/database.js';
import { deprecationFixture } from '../support/deprecation-fixture.js';
import { startFixtureServer } from '../support/server.js';
import { until } from '../support/until.js';

const ADMIN_KEY = 'notices-test-admin-key-0123456789';
const ITEM = 'rest.listProducts';
const fixture = deprecationFixture();
const database = serverDatabase('notices');

let server: RunningServer | undefined;
let receiver: Server;
let smtp: SMTPServer;
let smtpPort = 0;
let receiverUrl: string;
const received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
const mails: Array<{ to: string[]; text: string }> = [];
const smtpEnv = () => ({ SMTP_URL: `smtp://127.0.0.1:${smtpPort}` });
const start = async () => {
  server = await startFixtureServer({
    projectRoot: fixture.root,
    database,
    adminKey: ADMIN_KEY,
    env: {
      ...{ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '100', USAGE_FLUSH_MS: '50', ...smtpEnv() },
      ...{ SMTP_POLL_MS: '100', SMTP_RETRY_SECONDS: Array.from({ length: 20 }, () => '1').join(',') },
    },
  });
};

/** A local SMTP server on `port` (0: any) keeping each message, its quoted-printable soft breaks undone. */
async function startSmtp(port: number): Promise<SMTPServer> {
  const started = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      let text = '';
      stream.on('data', (chunk) => {
        text += chunk;
      });
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), text: text.replace(/=\r?\n/g, '') });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => started.listen(port, '127.0.0.1', resolve));
  smtpPort = (started.server.address() as AddressInfo).port;
  return started;
}
const stopSmtp = () => new Promise<void>((resolve) => smtp.close(() => resolve()));

async function call<T = Record<string, unknown>>(method: string, path: string, body?: unknown, key = ADMIN_KEY) {
  const seen = await checkedFetch((server as RunningServer).httpUrl, path, {
    method,
    ...(body ? { body: JSON.stringify(body) } : {}),
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
  });
  return { status: seen.status, body: seen.body as T };
}

/** A customer with a key and an endpoint at `/<name>` taking both notice types. */
async function customer(name: string) {
  const user = await call<{ id: number }>('POST', '/v1/users', { name, email: `${name}@notices.example.com` });
  const issue = () =>
    call<{ id: number; key: string }>('POST', '/v1/api-keys', { userId: user.body.id, role: 'customer' });
  const issued = await issue();
  const endpoint = await call<{ id: number; secret: string }>(
    'POST',
    '/v1/webhook-endpoints',
    { url: `${receiverUrl}/${name}`, events: ['brownout.scheduled', 'deprecation.announced'] },
    issued.body.key,
  );
  expect(endpoint.status).toBe(201);
  return {
    keyId: issued.body.id,
    key: issued.body.key,
    secret: endpoint.body.secret,
    endpointId: endpoint.body.id,
    issue,
  };
}

interface Delivery {
  channel: string;
  endpointId: number | null;
  to: string | null;
  state: string;
  attempts: number;
  succeededAt: string | null;
  error: string | null;
}
type NoticeList = { items: Array<{ apiKeyId: number; eventId: string | null; deliveries: Delivery[] }> };
const report = async () => (await call<NoticeList>('GET', `/v1/deprecations/${ITEM}/notices?size=100`)).body.items;
const deliveriesTo = (name: string, type: string) =>
  received.filter((entry) => entry.path === `/${name}` && JSON.parse(entry.body).type === type);

let uma: Awaited<ReturnType<typeof customer>>;
let umaSecondKey: number;
let cal: Awaited<ReturnType<typeof customer>>;
let ben: Awaited<ReturnType<typeof customer>>;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ path: request.url ?? '/', headers: request.headers, body });
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  smtp = await startSmtp(0);
  await start();
  [uma, cal, ben] = [await customer('uma'), await customer('cal'), await customer('ben')];
  const second = await uma.issue();
  umaSecondKey = second.body.id;
  // Uma (both keys) and Cal use the deprecated item; Ben uses another deprecated item, never this one.
  for (const key of [uma.key, second.body.key, cal.key]) {
    expect((await call('GET', '/v1/products', undefined, key)).status).toBe(200);
  }
  expect((await call('GET', '/v1/orders?hasCoupon=true', undefined, ben.key)).status).toBe(200);
  await until(async () => {
    const callers = await call<{ items: unknown[] }>('GET', `/v1/deprecations/${ITEM}/callers`);
    const listed = await call<{ items: Array<{ uses: { last1Days: number } }> }>('GET', '/v1/deprecations');
    const used = listed.body.items?.filter((entry) => entry.uses.last1Days > 0).length ?? 0;
    return callers.body.items?.length === 3 && used >= 2 ? true : undefined;
  });
});
afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  if (smtp) await stopSmtp();
  await database.remove();
  fixture.remove();
});

describe('notices that reach callers', () => {
  it('sends a signed brownout.scheduled to each caller that used the item, and mails its owner', async () => {
    const startsAt = new Date(Date.now() + 8 * 86_400_000);
    const created = await call<{ id: number }>('POST', '/v1/brownouts', {
      item: ITEM,
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 600_000).toISOString(),
    });
    expect(created.status).toBe(201);
    const delivery = await until(() => deliveriesTo('uma', 'brownout.scheduled')[0]);
    const event = new Webhook(uma.secret).verify(delivery.body, {
      'webhook-id': delivery.headers['webhook-id'] as string,
      'webhook-timestamp': delivery.headers['webhook-timestamp'] as string,
      'webhook-signature': delivery.headers['webhook-signature'] as string,
    }) as { type: string; data: { object: { id: number; item: string; state: string } } };
    expect(event).toMatchObject({
      type: 'brownout.scheduled',
      data: { object: { id: created.body.id, item: ITEM, state: 'announced' } },
    });
    await until(() => deliveriesTo('cal', 'brownout.scheduled')[0]);
    const mailTo = (name: string) => mails.find((entry) => entry.to.includes(`${name}@notices.example.com`));
    const [umaMail, calMail] = [await until(() => mailTo('uma')), await until(() => mailTo('cal'))];
    expect(umaMail.text).toContain(delivery.headers['webhook-id']);
    expect(calMail.text).toContain(ITEM);
    // One event per user, not per key; both copies were queued in one transaction and sent in one pass.
    expect(deliveriesTo('uma', 'brownout.scheduled')).toHaveLength(1);
    expect(received.some((entry) => entry.path === '/ben')).toBe(false);
    expect(mailTo('ben')).toBeUndefined();
  });

  it('sends a notice that names no keys to every key of the last 30 days, and reports each delivery', async () => {
    const sent = await call<NoticeList>('POST', `/v1/deprecations/${ITEM}/notices`, { channel: 'webhook' });
    expect(sent.status).toBe(201);
    // One notice per key (by key id), one event per owner: Uma's two keys share hers.
    const eventOf = new Map(sent.body.items.map((notice) => [notice.apiKeyId, notice.eventId as string]));
    expect([...eventOf.keys()]).toEqual([uma.keyId, cal.keyId, umaSecondKey]);
    const [umaEvent, calEvent] = [eventOf.get(uma.keyId) as string, eventOf.get(cal.keyId) as string];
    expect(eventOf.get(umaSecondKey)).toBe(umaEvent);
    expect(calEvent).not.toBe(umaEvent);
    // Queued, not sent, when the request answers: it waits on no receiver and no SMTP server.
    expect(sent.body.items[0]?.deliveries).toEqual([
      expect.objectContaining({ channel: 'webhook', endpointId: uma.endpointId, state: 'pending', attempts: 0 }),
      expect.objectContaining({ channel: 'email', to: 'uma@notices.example.com', state: 'pending', attempts: 0 }),
    ]);
    for (const [name, eventId] of [
      ['uma', umaEvent],
      ['cal', calEvent],
    ]) {
      if (!name || !eventId) throw new Error('two notified owners');
      await until(() => deliveriesTo(name, 'deprecation.announced').find((entry) => entry.body.includes(eventId)));
      await until(() => mails.find((entry) => entry.text.includes(eventId)));
    }
    expect(deliveriesTo('uma', 'deprecation.announced')).toHaveLength(1);
    expect(received.some((entry) => entry.path === '/ben')).toBe(false);
    const delivered = await until(async () => {
      const notices = (await report()).filter((notice) => [umaEvent, calEvent].includes(notice.eventId as string));
      const done = notices.flatMap((notice) => notice.deliveries).every((entry) => entry.state === 'succeeded');
      return done ? notices : undefined;
    });
    expect(delivered.find((notice) => notice.apiKeyId === cal.keyId)?.deliveries).toEqual([
      expect.objectContaining({ channel: 'webhook', endpointId: cal.endpointId, attempts: 1, error: null }),
      expect.objectContaining({ channel: 'email', to: 'cal@notices.example.com', attempts: 1, error: null }),
    ]);
  });

  it('answers an empty list for an item no key used in 30 days, and sends nothing', async () => {
    const listed = await call<{ items: Array<{ id: string; uses: { last30Days: number } }> }>(
      'GET',
      '/v1/deprecations',
    );
    const unused = listed.body.items.find((entry) => entry.uses.last30Days === 0) as { id: string };
    const before = { received: received.length, mails: mails.length };
    const sent = await call(`POST`, `/v1/deprecations/${unused.id}/notices`, { channel: 'webhook' });
    expect(sent).toEqual({ status: 201, body: { items: [], hasNext: false } });
    expect((await call<NoticeList>('GET', `/v1/deprecations/${unused.id}/notices`)).body.items).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect({ received: received.length, mails: mails.length }).toEqual(before);
  });

  it('retries the mail of an SMTP server that is down until it is up, and reports how it went', async () => {
    await stopSmtp();
    const sent = await call<NoticeList>('POST', `/v1/deprecations/${ITEM}/notices`, {
      apiKeyIds: [cal.keyId],
      channel: 'email',
    });
    const eventId = sent.body.items[0]?.eventId as string;
    const mailOf = async () =>
      (await report())
        .find((notice) => notice.eventId === eventId)
        ?.deliveries.find((entry) => entry.channel === 'email');
    const failing = await until(async () => ((await mailOf())?.error ? mailOf() : undefined));
    expect(failing).toMatchObject({
      state: 'pending',
      succeededAt: null,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
    smtp = await startSmtp(smtpPort);
    await until(() => mails.find((entry) => entry.text.includes(eventId)), 10_000);
    const sentMail = await until(async () => ((await mailOf())?.state === 'succeeded' ? mailOf() : undefined));
    expect(sentMail).toMatchObject({ to: 'cal@notices.example.com', error: null, succeededAt: expect.any(String) });
    expect(sentMail?.attempts).toBeGreaterThanOrEqual(2);
  }, 30_000);

  it('mails a notice committed while no server ran when the next one starts', async () => {
    await server?.close();
    server = undefined;
    const startsAt = new Date(Date.now() + 20 * 86_400_000).toISOString();
    const endsAt = new Date(Date.now() + 20 * 86_400_000 + 600_000).toISOString();
    const registry = path.join(fixture.root, 'generated/deprecations.json');
    const command = ['tsx', 'src/cli/brownouts.ts', 'schedule', ITEM, '--start', startsAt, '--end', endsAt];
    const { stdout } = await promisify(execFile)('npx', [...command, '--registry', registry], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { ...process.env, ...database.env, ...smtpEnv() },
    });
    expect(stdout).toContain('scheduled and announced');
    const mailed = () =>
      mails.find((entry) => entry.to.includes('uma@notices.example.com') && entry.text.includes(startsAt));
    expect(mailed()).toBeUndefined();
    await start();
    const mail = await until(mailed, 15_000);
    const webhook = await until(() =>
      deliveriesTo('uma', 'brownout.scheduled').find((entry) => entry.body.includes(startsAt)),
    );
    expect(mail.text).toContain(webhook.headers['webhook-id']);
  }, 60_000);
});
