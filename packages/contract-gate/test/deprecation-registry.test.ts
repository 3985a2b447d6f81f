/**
 * The registry builder on small contracts of its own (written to a temporary folder): the replacement a
 * deprecated item names in each notation, the watched replacement carried over when a watched item is
 * deprecated, and the problems of a replacement that names nothing beside its item.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildRegistry } from '../src/registry/build-registry.js';

const DATES = 'Deprecated: 2026-12-01. Sunset: 2027-06-01.';
const OPENAPI_DATES = "x-deprecated-on: '2026-12-01', x-sunset: '2027-06-01'";

const openapi = (extra = { amount: '', sort: '', search: '' }) => `openapi: 3.1.0
info: { title: fixture, version: 1.0.0 }
paths:
  /orders:
    get:
      operationId: listOrders
      parameters:
        - { name: sort, in: query, schema: { type: string }, deprecated: true, ${OPENAPI_DATES}${extra.sort} }
        - { name: orderBy, in: query, schema: { type: string } }
      responses: { '200': { description: ok } }
  /orders/search:
    get:
      operationId: searchOrders
      deprecated: true
      x-deprecated-on: '2026-12-01'
      x-sunset: '2027-06-01'${extra.search}
      responses: { '200': { description: ok } }
components:
  schemas:
    Order:
      type: object
      properties:
        amount: { type: number, description: Legacy total., deprecated: true, ${OPENAPI_DATES}${extra.amount} }
        amountDetail: { type: object }
        total: { type: number, deprecated: true, ${OPENAPI_DATES} }
        note: { type: string }
`;

const schema = (amountReason = `Use \`amountDetail\`. ${DATES}`) => `type Query { order: Order }
type Order {
  amount: Float @deprecated(reason: "${amountReason}")
  amountDetail: AmountDetail
  total: Float @deprecated(reason: "Legacy total. ${DATES}")
  note: String
}
type AmountDetail { net: Float }
`;

const proto = (reasonComment = `Free text. Replaced by: reason_code. ${DATES}`) => `syntax = "proto3";
package inventory.v1;
message AdjustStockRequest {
  // ${reasonComment}
  string reason = 1 [deprecated = true];
  string reason_code = 2;
}
`;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Builds the registry of contracts written from these texts. */
function build(files: { openapi?: string; schema?: string; proto?: string; watched?: string } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'registry-fixture-'));
  dirs.push(dir);
  mkdirSync(path.join(dir, 'inventory/v1'), { recursive: true });
  writeFileSync(path.join(dir, 'openapi.yaml'), files.openapi ?? openapi());
  writeFileSync(path.join(dir, 'schema.graphql'), files.schema ?? schema());
  writeFileSync(path.join(dir, 'inventory/v1/inventory.proto'), files.proto ?? proto());
  if (files.watched) writeFileSync(path.join(dir, 'watched.yaml'), files.watched);
  const { registry, problems } = buildRegistry(dir);
  const item = (id: string) => registry.items.find((entry) => entry.id === id);
  return { registry, problems, item };
}

describe('the registry builder: replacements', () => {
  it('reads the replacement of a deprecated item in each notation', () => {
    const { problems, item } = build({
      openapi: openapi({
        amount: ', x-replaced-by: amountDetail',
        sort: ', x-replaced-by: orderBy',
        search: '\n      x-replaced-by: listOrders',
      }),
    });
    expect(problems).toEqual([]);
    expect(item('rest.Order.amount')).toMatchObject({ status: 'deprecated', replacement: 'amountDetail' });
    expect(item('rest.listOrders.query.sort')).toMatchObject({ status: 'deprecated', replacement: 'orderBy' });
    expect(item('rest.searchOrders')).toMatchObject({ status: 'deprecated', replacement: 'listOrders' });
    expect(item('graphql.Order.amount')).toMatchObject({ status: 'deprecated', replacement: 'amountDetail' });
    expect(item('grpc.inventory.v1.AdjustStockRequest.reason')).toMatchObject({
      status: 'deprecated',
      replacement: 'reason_code',
    });
    // No notation, no replacement.
    expect(item('rest.Order.total')?.replacement).toBeNull();
    expect(item('graphql.Order.total')?.replacement).toBeNull();
  });

  it('carries a watched replacement over when the item is deprecated, and its reason if the contract has none', () => {
    const { problems, item } = build({
      watched: `watched:
  - { item: rest.Order.total, replacement: amountDetail, reason: Legacy total; amountDetail splits it. }
  - { item: graphql.Order.total, replacement: amountDetail, reason: Watched first. }
  - { item: graphql.Order.amount, replacement: amountDetail }
  - { item: graphql.Order.note, replacement: amountDetail, reason: Measured. }
`,
    });
    expect(problems).toEqual([]);
    expect(item('rest.Order.total')).toMatchObject({
      status: 'deprecated',
      replacement: 'amountDetail',
      reason: 'Legacy total; amountDetail splits it.',
    });
    expect(item('graphql.Order.total')).toMatchObject({
      status: 'deprecated',
      sunset: '2027-06-01',
      replacement: 'amountDetail',
      reason: `Legacy total. ${DATES}`,
    });
    // Both name the same replacement: no problem, one item.
    expect(item('graphql.Order.amount')).toMatchObject({ status: 'deprecated', replacement: 'amountDetail' });
    // Not deprecated: still watched, as before.
    expect(item('graphql.Order.note')).toMatchObject({
      status: 'watched',
      replacement: 'amountDetail',
      reason: 'Measured.',
    });
  });

  it('reports a replacement that names nothing beside its item, naming the item', () => {
    const { problems } = build({
      openapi: openapi({ amount: ', x-replaced-by: amountDetial', sort: ', x-replaced-by: order', search: '' }),
      schema: schema(`Use \`amountDetial\`. ${DATES}`),
      proto: proto(`Replaced by: code. ${DATES}`),
      watched: 'watched:\n  - { item: graphql.Order.note, replacement: noteText }\n',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'openapi.yaml schema Order property amount: replacement "amountDetial" names no property of schema Order',
        'openapi.yaml GET /orders parameter sort: replacement "order" names no parameter of GET /orders',
        'schema.graphql Order.amount: replacement "amountDetial" names no field of type Order',
        'inventory.v1 proto inventory.v1.AdjustStockRequest.reason: replacement "code" names no field of message inventory.v1.AdjustStockRequest',
        'watched.yaml #1 graphql.Order.note: replacement "noteText" names no field of type Order',
      ]),
    );
    expect(problems).toHaveLength(5);
  });

  it('reports a contract and watched.yaml that name different replacements, and a replacement of an item not deprecated', () => {
    const { problems, item } = build({
      openapi: openapi().replace('note: { type: string }', 'note: { type: string, x-replaced-by: amount }'),
      watched: 'watched:\n  - { item: graphql.Order.amount, replacement: total }\n',
    });
    expect(problems).toEqual([
      'openapi.yaml schema Order property note: names a replacement ("amount") but is not deprecated (a watched item\'s replacement goes in watched.yaml)',
      'schema.graphql Order.amount: replaced by "amountDetail" in the contract, but by "total" in watched.yaml',
    ]);
    // The contract's own notation wins.
    expect(item('graphql.Order.amount')?.replacement).toBe('amountDetail');
  });
});

describe('the registry builder: webhooks', () => {
  const withWebhooks = (updated: string) => `${openapi()}webhooks:
  order.created:
    post:
      operationId: orderCreatedWebhook
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } }
      responses: { '200': { description: ok } }
  order.updated:
    post:
      operationId: orderUpdatedWebhook
      description: Use order.changed.
${updated}      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } }
      responses: { '200': { description: ok } }
  order.changed:
    post:
      operationId: orderChangedWebhook
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } }
      responses: { '200': { description: ok } }
`;

  it('makes a deprecated webhook an item of its event type, with its dates and replacement', () => {
    const { problems, item } = build({
      openapi: withWebhooks(
        "      deprecated: true\n      x-deprecated-on: '2026-12-01'\n      x-sunset: '2027-06-01'\n      x-replaced-by: orderChangedWebhook\n",
      ),
      watched: 'watched:\n  - { item: rest.orderCreatedWebhook }\n',
    });
    expect(problems).toEqual([]);
    expect(item('rest.orderUpdatedWebhook')).toMatchObject({
      protocol: 'rest',
      status: 'deprecated',
      name: 'webhook order.updated',
      deprecated: '2026-12-01',
      sunset: '2027-06-01',
      replacement: 'orderChangedWebhook',
      reason: 'Use order.changed.',
      link: '/docs/deprecations#rest.orderUpdatedWebhook',
      match: { on: 'event', type: 'order.updated' },
    });
    // Watched by id, like any item; a webhook neither deprecated nor watched is no item.
    expect(item('rest.orderCreatedWebhook')).toMatchObject({ status: 'watched', match: { on: 'event' } });
    expect(item('rest.orderChangedWebhook')).toBeUndefined();
  });

  it('holds a deprecated webhook to the same dates as any operation, and its replacement to another webhook', () => {
    const { problems } = build({
      openapi: withWebhooks("      deprecated: true\n      x-sunset: '2027-02-30'\n      x-replaced-by: listOrders\n"),
    });
    expect(problems).toEqual([
      'openapi.yaml webhook order.updated (orderUpdatedWebhook): replacement "listOrders" names no webhook (operationId) of openapi.yaml',
      'openapi.yaml webhook order.updated (orderUpdatedWebhook): sunset "2027-02-30" is not a real date (YYYY-MM-DD)',
      'openapi.yaml webhook order.updated (orderUpdatedWebhook): deprecated without the date it was deprecated on',
    ]);
  });
});
