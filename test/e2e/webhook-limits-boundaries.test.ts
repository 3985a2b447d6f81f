/**
 * `PUT /v1/users/{userId}/webhook-limits` (REST only, as webhooks are) at the edges of its rules, each case
 * computed from the contract (`WebhookLimitsReplace` in contracts/openapi.yaml, read through the same rule
 * reader as the other boundary tests): at each bound and one past it, `null`, a missing member and an
 * unknown one. Every answer is checked against the contract.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openapiRules } from '@order-api/contract-gate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch } from '../support/contract.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'webhook-limits-admin-key-0123456789';
const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
const rules = openapiRules(
  parse(readFileSync(path.resolve(import.meta.dirname, '../../contracts/openapi.yaml'), 'utf8')),
);
const MEMBERS = ['endpoints', 'deliveriesPerMinute'] as const;

let server: RunningServer;
let userId: number;
beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, SEED_DEMO: 'false' });
  const user = await checkedFetch(server.httpUrl, '/v1/users', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ name: 'Lim', email: 'lim@example.com' }),
  });
  userId = (user.body as { id: number }).id;
});
afterAll(() => server?.close());

const put = (body: unknown) =>
  checkedFetch(server.httpUrl, `/v1/users/${userId}/webhook-limits`, {
    method: 'PUT',
    headers: auth,
    body: JSON.stringify(body),
  });

/** Each member's cases: at its bounds and one past them, and `null`. */
const cases = MEMBERS.flatMap((member) => {
  const { minimum, maximum, required } = rules.get(`WebhookLimitsReplace.${member}`) as {
    minimum: number;
    maximum: number;
    required?: boolean;
  };
  expect(required).toBe(true);
  return [
    { member, value: minimum, accept: true },
    { member, value: minimum - 1, accept: false },
    { member, value: maximum, accept: true },
    { member, value: maximum + 1, accept: false },
    { member, value: null, accept: true },
  ];
});

describe('PUT /v1/users/{userId}/webhook-limits at the edges of its rules', () => {
  it.each(cases)('$member = $value: accepted $accept', async ({ member, value, accept }) => {
    const body = { endpoints: null, deliveriesPerMinute: null, [member]: value };
    const answer = await put(body);
    if (accept) {
      expect([answer.status, answer.body]).toEqual([200, { userId, ...body }]);
    } else {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(JSON.stringify((answer.body as { errors: unknown }).errors)).toContain(member);
    }
  });

  it.each(MEMBERS)('requires %s, and refuses a member it does not know', async (member) => {
    const missing = await put({ endpoints: 5, deliveriesPerMinute: 5, [member]: undefined });
    expect([missing.status, (missing.body as { code: string }).code]).toEqual([400, 'VALIDATION_FAILED']);
    const unknown = await put({ endpoints: 5, deliveriesPerMinute: 5, perSecond: 1 });
    expect([unknown.status, (unknown.body as { code: string }).code]).toEqual([400, 'UNKNOWN_FIELD']);
  });
});
