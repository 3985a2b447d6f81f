/** Which registry items a finding of the gate is about, for the event types of the `webhooks` section. */

import { registryItem } from '@order-api/contract-registry/testing';
import { describe, expect, it } from 'vitest';
import type { Change } from '../src/breaking/model.js';
import { registryIdsOf } from '../src/breaking/registry-ids.js';

const registry = {
  items: [
    registryItem('rest.orderUpdatedWebhook', { match: { on: 'event', type: 'order.updated' } }),
    registryItem('rest.orderCreatedWebhook', { match: { on: 'event', type: 'order.created' } }),
  ],
};
const finding = (item: string, rule: string): Change => ({
  contract: 'openapi',
  item,
  rule,
  message: `${item}: ${rule}`,
  breaking: true,
  removal: true,
});

describe('registryIdsOf: event types', () => {
  it("names a webhook's item when the webhook is removed", () => {
    expect(registryIdsOf(finding('webhook order.updated POST', 'webhook-removed'), registry, {})).toEqual([
      'rest.orderUpdatedWebhook',
    ]);
  });

  it("leaves the event type out of a change of its payload's members (items of their own)", () => {
    const payload = finding('webhook order.updated POST payload data.object.amount', 'response-member-removed');
    expect(registryIdsOf(payload, registry, {})).toEqual([]);
  });
});
