/**
 * Impact's REST matching of the changes a request can meet (docs/decisions.md §13), over the real contract
 * and the names the real REST step records (`restShapes`): a request enum value removed, a request body
 * removed, and a member of a PATCH body removed. Each names the caller who sent what the
 * candidate refuses, and not the caller beside it who did not.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ShapeReader } from '@order-api/contract-gate';
import { analyzeImpact } from '@order-api/contract-gate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { ShapeUse } from '../../src/core/ports/shapes.js';
import { restShapes } from '../../src/rest/request-shapes.js';

const root = path.resolve(import.meta.dirname, '../..');
const baseDir = path.join(root, 'contracts');
const scratch = mkdtempSync(path.join(tmpdir(), 'shape-callers-'));
const headDir = path.join(scratch, 'contracts');
const day = new Date().toISOString().slice(0, 10);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A candidate without `admin` in `ApiKeyRole`, without the cancellation's body, without `OrderPatch.note`,
 * whose order list no longer sorts by `amount`, and whose key rotation requires a body.
 */
function candidate(): void {
  cpSync(baseDir, headDir, { recursive: true });
  const file = path.join(headDir, 'openapi.yaml');
  const openapi = parse(readFileSync(file, 'utf8'));
  openapi.components.schemas.ApiKeyRole.enum = ['customer'];
  delete openapi.paths['/v1/orders/{orderId}/cancellation'].post.requestBody;
  delete openapi.components.schemas.OrderPatch.properties.note;
  openapi.components.parameters.OrderSort.schema.pattern = '^-?(createdAt|id)(,-?(createdAt|id))*$';
  openapi.paths['/v1/api-keys/{apiKeyId}/rotation'].post.requestBody.required = true;
  writeFileSync(file, stringify(openapi));
}

/** What each key sent, as the REST step names it. */
function recorded(): ShapeUse[] {
  const shapes = restShapes(parse(readFileSync(path.join(baseDir, 'openapi.yaml'), 'utf8')));
  const sent = (apiKeyId: number, operationId: string, body: unknown, query: Record<string, string> = {}) =>
    shapes.of(operationId, { query, header: () => undefined, body, fields: undefined }).map(
      (shape): ShapeUse => ({
        protocol: 'rest',
        shape,
        apiKeyId,
        client: 'shape-test/1.0',
        day,
        count: 1,
        firstSeen: new Date(),
        lastSeen: new Date(),
        label: `key ${apiKeyId}`,
        ownerName: null,
        ownerEmail: null,
      }),
    );
  return [
    ...sent(1, 'createApiKey', { userId: 7, role: 'admin' }),
    ...sent(2, 'createApiKey', { userId: 7, role: 'customer' }),
    ...sent(3, 'createCancellation', { reason: 'changed my mind' }),
    ...sent(4, 'createCancellation', undefined),
    ...sent(5, 'updateOrder', { note: 'by the door' }),
    ...sent(6, 'updateOrder', { status: 'PAID' }),
    ...sent(7, 'listOrders', undefined, { sort: 'createdAt,-amount' }),
    ...sent(8, 'listOrders', undefined, { sort: '-createdAt,id' }),
    ...sent(9, 'rotateApiKey', { overlapUntil: '2026-12-01T00:00:00Z' }),
    ...sent(10, 'rotateApiKey', undefined),
  ];
}

/** The record's reads over rows in memory, as the store answers them (shapes named, or by prefix). */
function reader(rows: ShapeUse[]): ShapeReader {
  return {
    uses: async ({ protocol, shapes, prefix }) =>
      rows.filter(
        (row) =>
          (protocol === undefined || row.protocol === protocol) &&
          (shapes === undefined || shapes.includes(row.shape)) &&
          (prefix === undefined || row.shape.startsWith(prefix)),
      ),
    signatures: async () => [],
    coverage: async () => [{ day, served: 1, flushed: 1, dropped: {} }],
  };
}

describe('impact names who sent what a REST change refuses, and not the caller beside them', () => {
  let impacts: Awaited<ReturnType<typeof analyzeImpact>>['impacts'] = [];
  beforeAll(async () => {
    candidate();
    const shapes = { reader: reader(recorded()), sinceDay: day, days: 1 };
    impacts = (await analyzeImpact({ root, baseDir, headDir, callers: null, shapes })).impacts;
  });
  const callersOf = (rule: string, item: RegExp) => {
    const found = impacts.filter((impact) => impact.rule === rule && item.test(impact.item));
    expect(found.length, `${rule} ${item}`).toBeGreaterThan(0);
    return [...new Set(found.flatMap((impact) => impact.callers ?? []).map((caller) => caller.apiKeyId))];
  };

  it('a request enum value removed: who sent that value', () => {
    expect(callersOf('request-enum-value-removed', /ApiKeyRole/)).toEqual([1]);
  });

  it('a request body removed: who sent a body', () => {
    const item = /^POST \/v1\/orders\/\{orderId\}\/cancellation request body$/;
    expect(callersOf('request-body-removed', item)).toEqual([3]);
  });

  it('a sort pattern narrowed: who sorted by a key it no longer admits', () => {
    expect(callersOf('request-constraint-narrowed', /^GET \/v1\/orders query:sort$/)).toEqual([7]);
  });

  it('a request body now required: who called without one', () => {
    expect(callersOf('request-body-required', /^POST \/v1\/api-keys\/\{apiKeyId\}\/rotation request body$/)).toEqual([
      10,
    ]);
  });

  it('a member of a PATCH body removed: who sent that member', () => {
    expect(callersOf('request-member-removed', /^OrderPatch\.note$/)).toEqual([5]);
  });
});
