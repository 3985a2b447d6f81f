/**
 * Every operation of the contract, held to the statuses any request can provoke without the operation's own
 * data: from a request that names things that do not exist (ids 999999), the one change that makes the
 * server answer each status, checked against what the contract documents for it (status, media type,
 * schema, headers: test/support/contract.ts).
 *   400  an unknown query parameter         406  an `Accept` the operation cannot meet
 *   401  no key                              413  a body past 1 MiB          415  a body that is not JSON
 *   200  nothing, for a read of no particular resource (a list, the caller's own, a document, a probe)
 *   403  a key without the operation's scope (a customer key on an admin operation)
 *   404  an id or item that does not exist
 *   429  a key whose budget of one point is spent
 *   500, 503  the core failing (an error, the database away) under a request that passes validation (its
 *        body the contract's own example)
 * The statuses that need the operation's own data (any other success, 304, 409, 412, 422, 504, a 403 of a key's own
 * resource) are listed in NEEDS_DATA with the reason; test/contracts/conformance.test.ts provokes every
 * status of the admin lists, and each operation's own tests the rest. A status the contract documents that
 * is neither provoked here nor listed fails the first test, so a new response is placed as it is documented.
 */
import type { Operation } from 'openapi-backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/shared/errors.js';
import type { RunningServer } from '../../src/main.js';
import { checkedFetch, contractOperations, expectContract, type SeenResponse } from '../support/contract.js';
import { type Attempt, sendAttempt, withFailingCore } from '../support/probes.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'conformance-every-admin-key-0123456789';
const MISSING_ID = '999999';
const ITEM = 'rest.Order.amount';

/** Statuses this test does not provoke, with why: each needs the operation's own data. */
const NEEDS_DATA: Record<string, string> = {
  200: "a success on a resource needs the resource's data",
  201: "a success needs the resource's data",
  202: "a success needs the resource's data",
  204: "a success needs the resource's data",
  304: "a conditional read needs the resource's ETag",
  409: "a conflict needs the resource's state (a taken SKU or e-mail, a transition, a used key)",
  412: "a failed precondition needs the resource's ETag",
  422: 'a refused domain rule needs data that breaks it (stock, an address)',
  504: 'an upstream time-out needs a slow inventory (test/e2e/grpc.test.ts)',
};

let server: RunningServer;
let operations: Operation[];
let adminUserId: number;
const keys: Record<string, string> = {};

const authorized = (key: string) => ({ authorization: `Bearer ${key}` });

async function issueKey(body: Record<string, unknown>): Promise<string> {
  const issued = await checkedFetch(server.httpUrl, '/v1/api-keys', {
    method: 'POST',
    headers: { ...authorized(ADMIN_KEY), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(issued.status, JSON.stringify(issued.body)).toBe(201);
  return (issued.body as { key: string }).key;
}

beforeAll(async () => {
  server = await startTestServer({
    ADMIN_API_KEY: ADMIN_KEY,
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_ADMIN: '100000',
    RATE_LIMIT_ANONYMOUS: '100000',
  });
  operations = [...(await contractOperations()).values()];
  adminUserId = (await server.core.apiKeys.authenticate(ADMIN_KEY)).userId;
  const customer = await checkedFetch(server.httpUrl, '/v1/users', {
    method: 'POST',
    headers: { ...authorized(ADMIN_KEY), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Every Operation', email: 'every-operation@example.com' }),
  });
  const userId = (customer.body as { id: number }).id;
  keys.customer = await issueKey({ userId, role: 'customer' });
  // Keys with one scope each: a key of one scope is refused every operation of another.
  keys.ratings = await issueKey({ userId, role: 'customer', scopes: ['ratings:write'] });
  keys.orders = await issueKey({ userId, role: 'customer', scopes: ['orders:read'] });
});

afterAll(async () => {
  await server?.close();
});

type Json = Record<string, any>;

/** The contract's first example of the operation's JSON body, when it takes one. */
function exampleBody(operation: Operation): unknown {
  const media = (operation.requestBody as Json | undefined)?.content?.['application/json'];
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values<Json>(media.examples ?? {})[0];
  return first?.value;
}

/** The operation's request with ids that do not exist, an admin key and its example body. */
function request(operation: Operation): Attempt {
  const body = exampleBody(operation);
  return {
    path: operation.path.replace('{item}', ITEM).replace(/\{[A-Za-z]+\}/g, MISSING_ID),
    method: operation.method.toUpperCase(),
    headers: { ...authorized(ADMIN_KEY), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  };
}

const send = (attempt: Attempt) => sendAttempt(server.httpUrl, attempt);

const scopeOf = (operation: Operation) => (operation as Json)['x-scope'] as string;
const isHealth = (operation: Operation) => operation.path.startsWith('/health');

/** Why a status the operation documents is not provoked here (undefined: it should be). */
function whyNotProvoked(operation: Operation, status: string): string | undefined {
  if (isHealth(operation)) return 'the health probes answer from the database and the process, not the core';
  if (status === '403' && scopeOf(operation) === 'self') return "another key's own resource needs that key";
  // Every key that passes authentication was issued (the configured admin key too): not reachable from outside.
  if (status === '404' && operation.path.includes('/me/')) return 'a request without an issued key';
  if (status === '404')
    return 'what the body names (a product, a user, a draft) must be missing from a body built for it';
  return NEEDS_DATA[status];
}

/** How each status is provoked for an operation, or undefined when it cannot be without the operation's data. */
function provoker(
  operation: Operation,
  status: string,
): (() => Promise<{ url: string; seen: SeenResponse }>) | undefined {
  const valid = request(operation);
  const scope = scopeOf(operation);
  switch (status) {
    case '200':
      // A read of no particular resource (a list, the caller's own, a published document, a probe) succeeds
      // with the admin key alone; a success on a resource needs that resource.
      if (operation.method !== 'get' || operation.path.includes('{')) return undefined;
      return () => send(valid);
    case '400':
      return () => send({ ...valid, query: 'unknownParameter=1' });
    case '401':
      return () => send({ ...valid, headers: { ...valid.headers, authorization: 'Bearer oak_no_such_key' } });
    case '403':
      if (scope === 'self' || scope === 'public') return undefined;
      return () => {
        const key = scope === 'admin' ? keys.customer : scope === 'ratings:write' ? keys.orders : keys.ratings;
        return send({ ...valid, headers: { ...valid.headers, ...authorized(key as string) } });
      };
    case '404':
      if (!operation.path.includes('{')) return undefined;
      return () =>
        send({
          ...valid,
          path: operation.path.replace('{item}', 'rest.noSuchItem').replace(/\{[A-Za-z]+\}/g, MISSING_ID),
        });
    case '406':
      return () => send({ ...valid, headers: { ...valid.headers, accept: 'text/csv' } });
    case '413':
      return () =>
        send({
          ...valid,
          headers: { ...valid.headers, 'content-type': 'application/json' },
          body: `"${'x'.repeat(1_100_000)}"`,
        });
    case '415':
      return () =>
        send({ ...valid, headers: { ...valid.headers, 'content-type': 'text/plain' }, body: valid.body ?? 'text' });
    case '429':
      return async () => {
        const key = await issueKey({ userId: adminUserId, role: 'admin', rateLimit: 1 });
        const headers = { ...valid.headers, ...authorized(key) };
        let answer = await send({ ...valid, headers });
        for (let attempt = 0; attempt < 3 && answer.seen.status !== 429; attempt++)
          answer = await send({ ...valid, headers });
        return answer;
      };
    case '500':
    case '503':
      if (isHealth(operation)) return undefined;
      return () =>
        withFailingCore(
          server.core,
          status === '500'
            ? () => new Error('injected failure')
            : () => new DomainError('DATABASE_UNAVAILABLE', 'The database could not be reached.'),
          () => send(valid),
        );
    default:
      return undefined;
  }
}

describe('every operation of the contract, status by status, through the real server', () => {
  it('provokes each status every operation documents, or says why it needs the operation’s data', () => {
    const unplaced: string[] = [];
    let listed = 0;
    for (const operation of operations) {
      for (const status of Object.keys(operation.responses ?? {})) {
        if (provoker(operation, status)) continue;
        if (whyNotProvoked(operation, status)) listed++;
        else unplaced.push(`${operation.operationId} ${status}`);
      }
    }
    expect(unplaced).toEqual([]);
    // What is left to the operations' own tests: the successes and the answers of their data.
    expect(listed).toBeLessThanOrEqual(90);
  });

  it('answers every status it provokes as the contract documents it', async () => {
    let provoked = 0;
    const wrong: string[] = [];
    for (const operation of operations) {
      for (const status of Object.keys(operation.responses ?? {})) {
        const provoke = provoker(operation, status);
        if (!provoke) continue;
        const { url, seen } = await provoke();
        if (seen.status !== Number(status)) {
          wrong.push(
            `${operation.method.toUpperCase()} ${operation.path} for ${status}: ${seen.status} ${seen.text.slice(0, 160)}`,
          );
          continue;
        }
        await expectContract(operation.method.toUpperCase(), url, seen);
        provoked++;
      }
    }
    expect(wrong).toEqual([]);
    expect(provoked).toBeGreaterThanOrEqual(475);
  }, 120_000);
});
