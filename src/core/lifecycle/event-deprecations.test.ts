import { registryItem } from '@order-api/contract-registry/testing';
import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../shared/events.js';
import { carriedItems, createDeliveryDeprecations, type EventItemIndex } from './event-deprecations.js';
import type { UsageEvent } from './usage/usage-recorder.js';

const updatedWebhook = registryItem('rest.orderUpdatedWebhook', {
  name: 'webhook order.updated',
  match: { on: 'event', type: 'order.updated' },
});
const amount = registryItem('rest.Order.amount', {
  deprecated: '2026-12-01',
  sunset: '2027-03-31',
  replacement: 'amountDetail',
  match: { on: 'property', schema: 'Order', path: ['amount'] },
});
const itemAmount = registryItem('rest.OrderItem.amount', {
  status: 'watched',
  deprecated: null,
  sunset: null,
  match: { on: 'property', schema: 'OrderItem', path: ['amount'] },
});

const index: EventItemIndex = new Map([
  ['order.updated', { event: [updatedWebhook], members: [] }],
  [
    'order.created',
    {
      event: [],
      members: [
        { item: amount, paths: [['data', 'object', 'amount']] },
        { item: itemAmount, paths: [['data', 'object', 'items', '*', 'amount']] },
      ],
    },
  ],
]);

const envelope = (type: string, object: Record<string, unknown>): EventEnvelope =>
  ({ id: 'evt_1', type, createdAt: '2026-12-02T10:00:00.000Z', data: { object } }) as EventEnvelope;
const order = { id: 1, amount: 99, items: [{ id: 1, amount: 99 }], amountDetail: { supply: 90, vat: 9, total: 99 } };

function deliveries(publicBaseUrl?: string) {
  const recorded: UsageEvent[] = [];
  const deprecationsOf = createDeliveryDeprecations({
    index,
    recorder: { record: (event) => recorded.push(event) },
    usageBase: '/v1',
    publicBaseUrl,
  });
  return { recorded, deprecationsOf: deprecationsOf as NonNullable<typeof deprecationsOf> };
}

describe('event deprecations: what a delivery carries', () => {
  it('finds the payload members present in the envelope, array items included', () => {
    expect(carriedItems(index, envelope('order.created', order))).toEqual([amount, itemAmount]);
    expect(carriedItems(index, envelope('order.created', { ...order, items: [] }))).toEqual([amount]);
    // A member left out (a trimmed or older payload) is not carried.
    expect(carriedItems(index, envelope('order.created', { id: 1, items: [{ id: 1 }] }))).toEqual([]);
  });

  it('finds the event type item whatever the payload holds, and nothing for a type no item touches', () => {
    expect(carriedItems(index, envelope('order.updated', {}))).toEqual([updatedWebhook]);
    expect(carriedItems(index, envelope('order.canceled', order))).toEqual([]);
  });
});

describe('event deprecations: signals and counts of a delivery', () => {
  it('gives nothing to do at all when no item touches an event', () => {
    const none = createDeliveryDeprecations({ index: new Map(), usageBase: '/v1' });
    expect(none).toBeUndefined();
    expect(deliveries().deprecationsOf({ endpoint: { apiKeyId: 7 } }, envelope('order.canceled', order))).toBe(
      undefined,
    );
  });

  it("signals the deprecated items a delivery carries as REST does, linking the endpoint key's own usage", () => {
    const { deprecationsOf } = deliveries();
    const created = deprecationsOf({ endpoint: { apiKeyId: 7 } }, envelope('order.created', order));
    expect(created?.headers).toEqual({
      Deprecation: `@${Date.parse('2026-12-01T00:00:00Z') / 1000}`,
      Sunset: 'Wed, 31 Mar 2027 00:00:00 GMT',
      // The watched OrderItem.amount is counted but never signalled.
      Link: '</docs/deprecations#rest.Order.amount>; rel="deprecation"; type="text/html", </v1/api-keys/7/deprecations>; rel="related"; type="application/json"',
    });
  });

  it('makes the links absolute with PUBLIC_BASE_URL, since a receiver would resolve them against its own URL', () => {
    const { deprecationsOf } = deliveries('https://api.example.com');
    const updated = deprecationsOf({ endpoint: { apiKeyId: 7 } }, envelope('order.updated', order));
    expect(updated?.headers.Link).toBe(
      '<https://api.example.com/docs/deprecations#rest.orderUpdatedWebhook>; rel="deprecation"; type="text/html", <https://api.example.com/v1/api-keys/7/deprecations>; rel="related"; type="application/json"',
    );
  });

  it("counts a delivery's uses for the endpoint's key only once the receiver accepted it", () => {
    const { deprecationsOf, recorded } = deliveries();
    const created = deprecationsOf({ endpoint: { apiKeyId: 7 } }, envelope('order.created', order));
    // Sending (and failing) counts nothing: only an accepted attempt is a use.
    expect(recorded).toEqual([]);
    created?.accepted();
    expect(recorded).toEqual([
      { item: 'rest.Order.amount', apiKeyId: 7, client: 'webhooks', kind: 'use' },
      { item: 'rest.OrderItem.amount', apiKeyId: 7, client: 'webhooks', kind: 'use' },
    ]);
  });

  it('counts a carried member as a use even though the payload also carries its replacement', () => {
    // The receiver cannot ask for `amountDetail` instead: what the payload carries, it receives.
    const { deprecationsOf, recorded } = deliveries();
    deprecationsOf({ endpoint: { apiKeyId: null } }, envelope('order.created', { ...order, items: [] }))?.accepted();
    expect(recorded).toEqual([{ item: 'rest.Order.amount', apiKeyId: 0, client: 'webhooks', kind: 'use' }]);
  });
});
