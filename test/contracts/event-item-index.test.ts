import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RegistryItem } from '@order-api/contract-registry';
import { eventItemIndex } from '@order-api/contract-registry/matching';
import { registryItem } from '@order-api/contract-registry/testing';
import { describe, expect, it } from 'vitest';

// The project's own contract, as the server reads it (the published JSON form).
const document = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../../generated/contracts/openapi.json'), 'utf8'),
) as Record<string, unknown>;

const property = (schema: string, name: string) =>
  registryItem(`rest.${schema}.${name}`, { match: { on: 'property', schema, path: [name] } });
const webhook = (operationId: string, type: string) =>
  registryItem(`rest.${operationId}`, { name: `webhook ${type}`, match: { on: 'event', type } });

const summary = (items: RegistryItem[]) =>
  Object.fromEntries(
    [...eventItemIndex({ items }, document)].map(([type, entry]) => [
      type,
      {
        event: entry.event.map((item) => item.id),
        members: entry.members.map(({ item, paths }) => [item.id, paths.map((p) => p.join('.'))]),
      },
    ]),
  );

describe('eventItemIndex over the contract', () => {
  it('follows each payload schema to the properties it reaches, array items included', () => {
    // In the order the schema lists them: `items` comes before `amount` in Order.
    const orderMembers = [
      ['rest.OrderItem.amount', ['data.object.items.*.amount']],
      ['rest.Order.amount', ['data.object.amount']],
    ];
    expect(
      summary([
        property('Order', 'amount'),
        property('OrderItem', 'amount'),
        property('ProductRating', 'count'),
        webhook('orderUpdatedWebhook', 'order.updated'),
      ]),
    ).toEqual({
      'order.created': { event: [], members: orderMembers },
      'order.updated': { event: ['rest.orderUpdatedWebhook'], members: orderMembers },
      'order.canceled': { event: [], members: orderMembers },
    });
  });

  it('is empty when no item touches an event: REST operations, properties no payload reaches, GraphQL', () => {
    expect(
      summary([
        registryItem('rest.listProducts'),
        property('ProductRating', 'count'),
        registryItem('graphql.Order.amount', {
          protocol: 'graphql',
          match: { on: 'field', type: 'Order', field: 'amount' },
        }),
      ]),
    ).toEqual({});
  });

  it('indexes a deprecated event type whose payload carries nothing deprecated', () => {
    expect(summary([webhook('stockChangedWebhook', 'stock.changed')])).toEqual({
      'stock.changed': { event: ['rest.stockChangedWebhook'], members: [] },
    });
  });
});
