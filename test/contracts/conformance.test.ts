/**
 * The contract's sentences, held to the running server: every example it documents validates against the
 * schema beside it, and every status it documents for the operations below is provoked through the real
 * server and answered as documented (status, media type, schema, required headers: test/support/contract.ts).
 * A status the contract documents for one of them without a way to provoke it here fails the test, so a
 * new response is covered as it is documented. The checkable sentences of the introduction are held too:
 * list parameters may be repeated, other parameters may not, and what ignores `Accept` ignores it.
 */
import type { Operation } from 'openapi-backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/shared/errors.js';
import type { RunningServer } from '../../src/main.js';
import type { ProblemBody } from '../support/client.js';
import {
  checkedFetch,
  contractOperations,
  documentedExamples,
  expectContract,
  type SeenResponse,
} from '../support/contract.js';
import { type Attempt, sendAttempt, withFailingCore } from '../support/probes.js';
import { startTestServer } from '../support/server.js';

const ADMIN_KEY = 'conformance-admin-key-0123456789';
/** The item every `{item}` path names: watched in v1, so it is used (and counted) by every order read. */
const ITEM = 'rest.Order.amount';

/** The admin lists and the write that answers one: each documented status, provoked. */
const OPERATIONS = [
  'getDeprecationReport',
  'getDeprecationCallers',
  'listDeprecationNotices',
  'createDeprecationNotices',
  'getBrownoutSchedule',
];

let server: RunningServer;
let operations: Map<string, Operation>;
let customerKey: string;
let customerKeyId: number;
let adminUserId: number;

const authorized = (key: string) => ({ authorization: `Bearer ${key}` });

beforeAll(async () => {
  server = await startTestServer({
    ADMIN_API_KEY: ADMIN_KEY,
    // On: a 429 is one of the documented answers. Budgets are per instance here (no REDIS_URL).
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_ADMIN: '100000',
    RATE_LIMIT_ANONYMOUS: '100000',
  });
  operations = await contractOperations();
  const admin = await server.core.apiKeys.authenticate(ADMIN_KEY);
  adminUserId = admin.userId;
  const user = await checkedFetch(server.httpUrl, '/v1/users', {
    method: 'POST',
    headers: { ...authorized(ADMIN_KEY), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Conformance Customer', email: `conformance-${Date.now()}@example.com` }),
  });
  const key = await issueKey({ userId: (user.body as { id: number }).id, role: 'customer' });
  customerKey = key.key;
  customerKeyId = key.id;
  // A use of the item (an order read), so that the callers list has a caller.
  await server.flushUsage();
  expect((await checkedFetch(server.httpUrl, '/v1/orders', { headers: authorized(customerKey) })).status).toBe(200);
  await server.flushUsage();
});

afterAll(async () => {
  await server?.close();
});

async function issueKey(body: Record<string, unknown>): Promise<{ id: number; key: string }> {
  const issued = await checkedFetch(server.httpUrl, '/v1/api-keys', {
    method: 'POST',
    headers: { ...authorized(ADMIN_KEY), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(issued.status).toBe(201);
  return issued.body as { id: number; key: string };
}

/** A valid admin request of the operation: its path with a known item, and a valid body when it takes one. */
function validRequest(operation: Operation): Attempt {
  const body = operation.requestBody ? JSON.stringify({ apiKeyIds: [customerKeyId], channel: 'email' }) : undefined;
  return {
    path: operation.path.replace('{item}', ITEM),
    method: operation.method.toUpperCase(),
    headers: { ...authorized(ADMIN_KEY), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body } : {}),
  };
}

const send = (attempt: Attempt) => sendAttempt(server.httpUrl, attempt);

/**
 * How each documented status is provoked, for any of the operations: from the valid request, the one
 * change that makes the server answer that status.
 */
const provokers: Record<string, (operation: Operation) => Promise<{ url: string; seen: SeenResponse }>> = {
  200: (operation) => send(validRequest(operation)),
  201: (operation) => send(validRequest(operation)),
  400: (operation) => send({ ...validRequest(operation), query: 'unknownParameter=1' }),
  401: (operation) => {
    const { authorization: _dropped, ...headers } = validRequest(operation).headers;
    return send({ ...validRequest(operation), headers });
  },
  403: (operation) => {
    const request = validRequest(operation);
    return send({ ...request, headers: { ...request.headers, ...authorized(customerKey) } });
  },
  404: (operation) => send({ ...validRequest(operation), path: operation.path.replace('{item}', 'rest.noSuchItem') }),
  406: (operation) => {
    const request = validRequest(operation);
    return send({ ...request, headers: { ...request.headers, accept: 'text/csv' } });
  },
  413: (operation) => {
    const request = validRequest(operation);
    return send({ ...request, body: JSON.stringify({ channel: 'email', note: 'x'.repeat(1_100_000) }) });
  },
  415: (operation) => {
    const request = validRequest(operation);
    return send({ ...request, headers: { ...request.headers, 'content-type': 'text/plain' } });
  },
  429: async (operation) => {
    // An admin key of its own with a budget of one point: spent by the first request.
    const { key } = await issueKey({ userId: adminUserId, role: 'admin', rateLimit: 1 });
    const request = validRequest(operation);
    const headers = { ...request.headers, ...authorized(key) };
    let answer = await send({ ...request, headers });
    for (let attempt = 0; attempt < 3 && answer.seen.status !== 429; attempt++)
      answer = await send({ ...request, headers });
    return answer;
  },
  500: (operation) =>
    withFailingCore(
      server.core,
      () => new Error('injected failure'),
      () => send(validRequest(operation)),
    ),
  503: (operation) =>
    withFailingCore(
      server.core,
      // What the store throws when the database cannot be reached (src/store/database.ts).
      () => new DomainError('DATABASE_UNAVAILABLE', 'The database could not be reached.'),
      () => send(validRequest(operation)),
    ),
};

describe('the contract, example by example', () => {
  it('documents examples that validate against the schema beside each', async () => {
    const examples = await documentedExamples();
    expect(examples.length).toBeGreaterThan(20);
    expect(examples.filter((example) => example.errors)).toEqual([]);
    // The admin lists show an example of their envelope.
    for (const operationId of ['getDeprecationReport', 'getDeprecationCallers', 'listDeprecationNotices']) {
      const operation = operations.get(operationId) as Operation;
      const where = `GET ${operation.path} 200 application/json page`;
      expect(examples.map((example) => example.where)).toContain(where);
    }
  });
});

describe('the contract, status by status, through the real server', () => {
  it('lists a way to provoke every status these operations document', async () => {
    const known = await contractOperations();
    for (const operationId of OPERATIONS) {
      const operation = known.get(operationId);
      expect(operation, operationId).toBeDefined();
      for (const status of Object.keys(operation?.responses ?? {})) {
        expect(provokers[status], `${operationId} documents ${status}, which nothing here provokes`).toBeDefined();
      }
    }
  });

  for (const operationId of OPERATIONS) {
    it(`answers each status ${operationId} documents, as documented`, async () => {
      const operation = operations.get(operationId) as Operation;
      for (const status of Object.keys(operation.responses ?? {})) {
        const provoke = provokers[status];
        if (!provoke) continue; // reported by the test above
        const { url, seen } = await provoke(operation);
        expect(seen.status, `${operationId} provoked for ${status}: ${seen.text.slice(0, 300)}`).toBe(Number(status));
        await expectContract(operation.method.toUpperCase(), url, seen);
      }
    });
  }
});

describe('the sentences of the introduction that a request can check', () => {
  /** The GET operations without path parameters: what a request can reach with no id at hand. */
  const reachable = () =>
    [...operations.values()].filter((operation) => operation.method === 'get' && !operation.path.includes('{'));
  type Parameter = {
    name: string;
    in: string;
    schema?: { type?: string; default?: unknown; enum?: unknown[]; items?: { enum?: unknown[] } };
    example?: unknown;
  };
  const queryParameters = (operation: Operation) =>
    ((operation.parameters ?? []) as Parameter[]).filter((parameter) => parameter.in === 'query');

  it('accepts every list parameter repeated (`status=PAID&status=SHIPPED`) as it accepts it comma-separated', async () => {
    let tried = 0;
    for (const operation of reachable()) {
      for (const parameter of queryParameters(operation).filter((p) => p.schema?.type === 'array')) {
        const values = (parameter.example as unknown[] | undefined) ?? parameter.schema?.items?.enum ?? [];
        // One allowed value (`include=amountDetail`, unique items) cannot be repeated without a duplicate.
        if (values.length < 2) continue;
        const repeated = values.map((value) => `${parameter.name}=${encodeURIComponent(String(value))}`);
        const joined = `${parameter.name}=${values.map((value) => encodeURIComponent(String(value))).join(',')}`;
        const answers = [];
        for (const query of [repeated.join('&'), joined]) {
          const { url, seen } = await send({
            path: operation.path,
            query,
            method: 'GET',
            headers: authorized(ADMIN_KEY),
          });
          expect(seen.status, `${operation.operationId}?${query}: ${seen.text.slice(0, 200)}`).toBe(200);
          answers.push(await expectContract('GET', url, seen));
        }
        expect(answers[0], `${operation.operationId} ${parameter.name}`).toEqual(answers[1]);
        tried++;
      }
    }
    expect(tried).toBeGreaterThanOrEqual(4);
  });

  it('refuses any other parameter given twice with 400 UNKNOWN_PARAMETER naming it', async () => {
    let tried = 0;
    for (const operation of reachable()) {
      for (const parameter of queryParameters(operation).filter((p) => p.schema?.type !== 'array')) {
        const value = parameter.example ?? parameter.schema?.default ?? parameter.schema?.enum?.[0] ?? 'x';
        const once = `${parameter.name}=${encodeURIComponent(String(value))}`;
        const { url, seen } = await send({
          path: operation.path,
          query: `${once}&${once}`,
          method: 'GET',
          headers: authorized(ADMIN_KEY),
        });
        const problem = (await expectContract('GET', url, seen)) as ProblemBody;
        expect(seen.status, `${operation.operationId} ${parameter.name} twice`).toBe(400);
        expect(problem.code).toBe('UNKNOWN_PARAMETER');
        expect(problem.errors?.map((error) => error.name)).toContain(parameter.name);
        tried++;
      }
    }
    expect(tried).toBeGreaterThanOrEqual(10);
  });

  it('answers what documents no 406 (the health probes) whatever Accept and query parameters say', async () => {
    const probes = [...operations.values()].filter((operation) => !operation.responses?.['406']);
    expect(probes.map((operation) => operation.path).sort()).toEqual(['/health', '/health/live', '/health/ready']);
    for (const operation of probes) {
      const { url, seen } = await send({
        path: operation.path,
        query: 'probe=lb-7',
        method: 'GET',
        headers: { accept: 'text/csv' },
      });
      expect(seen.status, operation.path).toBe(200);
      await expectContract('GET', url, seen);
    }
  });

  it('answers /metrics in the Prometheus text format whatever Accept and query parameters say', async () => {
    const response = await fetch(`${server.httpUrl}/metrics?name[]=http_requests_total`, {
      headers: { ...authorized(ADMIN_KEY), accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await response.text()).toMatch(/^# HELP /m);
  });

  it('answers 406 on /v1 for an Accept it cannot meet', async () => {
    for (const operation of reachable().filter((operation) => operation.path.startsWith('/v1/'))) {
      const { url, seen } = await send({
        path: operation.path,
        method: 'GET',
        headers: { ...authorized(ADMIN_KEY), accept: 'text/csv' },
      });
      expect(seen.status, operation.path).toBe(406);
      await expectContract('GET', url, seen);
    }
  });
});
