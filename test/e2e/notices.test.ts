/**
 * Notices that reach callers: scheduling a brownout of a deprecated item sends a signed `brownout.scheduled`
 * to the endpoint of the customer that used the item (not to one that never did) and mails its owner through
 * a local SMTP server; a deprecation notice is sent as a `deprecation.announced` event that the notices
 * report names. One fixture server (GET /v1/products deprecated) over one database.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

let server: RunningServer;
let receiver: Server;
let smtp: SMTPServer;
let receiverUrl: string;
const received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
const mails: Array<{ to: string[]; text: string }> = [];

async function call<T = Record<string, unknown>>(method: string, path: string, body?: unknown, key = ADMIN_KEY) {
  const seen = await checkedFetch(server.httpUrl, path, {
    method,
    ...(body ? { body: JSON.stringify(body) } : {}),
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
  });
  return { status: seen.status, body: seen.body as T };
}

/** A customer with a key and an endpoint at `/<name>` taking both notice types. */
async function customer(name: string) {
  const user = await call<{ id: number }>('POST', '/v1/users', { name, email: `${name}@notices.example.com` });
  const issued = await call<{ id: number; key: string }>('POST', '/v1/api-keys', {
    userId: user.body.id,
    role: 'customer',
  });
  const endpoint = await call<{ secret: string }>(
    'POST',
    '/v1/webhook-endpoints',
    { url: `${receiverUrl}/${name}`, events: ['brownout.scheduled', 'deprecation.announced'] },
    issued.body.key,
  );
  expect(endpoint.status).toBe(201);
  return { keyId: issued.body.id, key: issued.body.key, secret: endpoint.body.secret };
}

let user: Awaited<ReturnType<typeof customer>>;
let bystander: Awaited<ReturnType<typeof customer>>;

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
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      let text = '';
      stream.on('data', (chunk) => {
        text += chunk;
      });
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), text });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  server = await startFixtureServer({
    projectRoot: fixture.root,
    database,
    adminKey: ADMIN_KEY,
    env: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_POLL_MS: '100',
      USAGE_FLUSH_MS: '50',
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    },
  });
  user = await customer('uma');
  bystander = await customer('ben');
  // Uma uses the deprecated item; Ben uses another deprecated item, never this one. Wait until both count.
  expect((await call('GET', '/v1/products', undefined, user.key)).status).toBe(200);
  expect((await call('GET', '/v1/orders?hasCoupon=true', undefined, bystander.key)).status).toBe(200);
  await until(async () => {
    const listed = await call<{ items: Array<{ uses: { last1Days: number } }> }>('GET', '/v1/deprecations');
    const used = listed.body.items?.filter((entry) => entry.uses.last1Days > 0).length ?? 0;
    return used >= 2 ? true : undefined;
  });
});
afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  await database.remove();
  fixture.remove();
});

describe('notices that reach callers', () => {
  it('sends a signed brownout.scheduled to the caller that used the item, and mails its owner', async () => {
    const startsAt = new Date(Date.now() + 8 * 86_400_000);
    const created = await call<{ id: number }>('POST', '/v1/brownouts', {
      item: ITEM,
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 600_000).toISOString(),
    });
    expect(created.status).toBe(201);
    const delivery = await until(() => received.find((entry) => entry.path === '/uma'));
    const event = new Webhook(user.secret).verify(delivery.body, {
      'webhook-id': delivery.headers['webhook-id'] as string,
      'webhook-timestamp': delivery.headers['webhook-timestamp'] as string,
      'webhook-signature': delivery.headers['webhook-signature'] as string,
    }) as { type: string; data: { object: { id: number; item: string; state: string } } };
    expect(event).toMatchObject({
      type: 'brownout.scheduled',
      data: { object: { id: created.body.id, item: ITEM, state: 'announced' } },
    });
    const mail = await until(() => mails.find((entry) => entry.to.includes('uma@notices.example.com')));
    // Both copies would be queued in one transaction and sent in one dispatcher pass.
    expect(mail.text).toContain(ITEM);
    expect(received.some((entry) => entry.path === '/ben')).toBe(false);
    expect(mails.some((entry) => entry.to.includes('ben@notices.example.com'))).toBe(false);
  });

  it('sends a deprecation notice as an event that the notices report names', async () => {
    const sent = await call<{ items: Array<{ eventId: string | null }> }>('POST', `/v1/deprecations/${ITEM}/notices`, {
      apiKeyIds: [user.keyId],
      channel: 'webhook',
    });
    expect(sent.status).toBe(201);
    const eventId = sent.body.items[0]?.eventId as string;
    expect(eventId).toMatch(/^evt_/);
    const delivery = await until(() =>
      received.find((entry) => entry.path === '/uma' && JSON.parse(entry.body).type === 'deprecation.announced'),
    );
    expect(JSON.parse(delivery.body)).toMatchObject({ id: eventId, data: { object: { item: ITEM } } });
    const report = await call<{ items: Array<{ apiKeyId: number; eventId: string | null }> }>(
      'GET',
      `/v1/deprecations/${ITEM}/notices`,
    );
    expect(report.body.items).toEqual([expect.objectContaining({ apiKeyId: user.keyId, eventId })]);
    await until(() => mails.find((entry) => entry.text.includes(eventId)));
    expect(received.some((entry) => entry.path === '/ben')).toBe(false);
    expect(bystander.keyId).not.toBe(user.keyId);
  });
});
