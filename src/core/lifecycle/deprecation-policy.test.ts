import type { RegistryItem } from '@order-api/contract-registry';
import { registryItem } from '@order-api/contract-registry/testing';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../shared/errors.js';
import { createDeprecationPolicy, type ReceivedItem, type UsageCount } from './deprecation-policy.js';

const item = (id: string, fields: Partial<RegistryItem> = {}): RegistryItem =>
  registryItem(id, { match: { on: 'property', schema: 'Order', path: ['amount'] }, ...fields });

const amount = item('rest.Order.amount', { replacement: 'amountDetail' });
const operation = item('rest.listProducts', { match: { on: 'operation', operationId: 'listProducts' } });
const watched = item('rest.Order.note', { status: 'watched', deprecated: null, sunset: null });

/** A policy over windows running for `running` items, recording every count it is handed. */
function policyWith(running: RegistryItem[] = []) {
  const recorded: Array<UsageCount & { apiKeyId: number | null }> = [];
  const policy = createDeprecationPolicy({
    brownouts: {
      refusal: (ids) => {
        const blocked = running.filter((candidate) => [...ids].includes(candidate.id));
        const [first] = blocked;
        if (!first) return undefined;
        return { blocked, item: first, retryAfterSeconds: 60, error: new DomainError('BROWNOUT', 'blocked') } as never;
      },
      announced: () => [],
    },
    recorder: {
      record: ({ item: id, apiKeyId, kind = 'use' }) =>
        recorded.push({
          item: [amount, operation, watched].find((entry) => entry.id === id) as RegistryItem,
          kind,
          apiKeyId,
        }),
    },
  });
  return { policy, recorded };
}

const caller = { apiKeyId: 7, client: 'shop-web/1.0' };
const read = (entry: Partial<ReceivedItem> = {}): ReceivedItem => ({
  item: amount,
  carried: true,
  named: false,
  ...entry,
});
const uses = (received: ReceivedItem[], asked: string[] = [], sent: RegistryItem[] = []) => ({
  sent,
  received,
  asked: new Set(asked),
});
const kinds = (counts: UsageCount[]) => counts.map((count) => `${count.item.id} ${count.kind}`);

describe('the deprecation policy', () => {
  it('reads a property its answer carries as a use, and signals it', () => {
    const { policy } = policyWith();
    const decision = policy.decide(caller, uses([read()]));
    expect(kinds(decision.receivedCounts)).toEqual(['rest.Order.amount use']);
    expect(decision.signalled).toEqual([amount]);
  });

  it('reads it as a replacement use when the request asked for the replacement, with no signal', () => {
    const { policy } = policyWith();
    for (const asked of [['amountDetail'], ['Order.amountDetail']]) {
      const decision = policy.decide(caller, uses([read()], asked));
      expect(kinds(decision.receivedCounts)).toEqual(['rest.Order.amount replacement']);
      expect(decision.signalled).toEqual([]);
    }
  });

  it('reads a property the request named itself as a use, even beside its replacement', () => {
    const { policy } = policyWith();
    const decision = policy.decide(caller, uses([read({ named: true })], ['amountDetail']));
    expect(kinds(decision.receivedCounts)).toEqual(['rest.Order.amount use']);
    expect(decision.signalled).toEqual([amount]);
  });

  it('counts nothing and signals nothing for a property the request left out', () => {
    const { policy } = policyWith();
    const decision = policy.decide(caller, uses([read({ carried: false })]));
    expect(decision.receivedCounts).toEqual([]);
    expect(decision.signalled).toEqual([]);
  });

  it('counts but never signals a watched item', () => {
    const { policy } = policyWith();
    const decision = policy.decide(caller, uses([read({ item: watched })]));
    expect(kinds(decision.receivedCounts)).toEqual(['rest.Order.note use']);
    expect(decision.signalled).toEqual([]);
  });

  it('withholds a property in a running window from every answer that carries it, a hit only for its users', () => {
    const { policy } = policyWith([amount]);
    const user = policy.decide(caller, uses([read()]));
    expect(user.withheld).toEqual([amount]);
    expect(kinds(user.receivedCounts)).toEqual(['rest.Order.amount brownout']);
    expect(user.refusal).toBeUndefined();
    const moved = policy.decide(caller, uses([read()], ['amountDetail']));
    expect(moved.withheld).toEqual([amount]);
    expect(kinds(moved.receivedCounts)).toEqual(['rest.Order.amount replacement']);
    expect(moved.signalled).toEqual([]);
    const leftOut = policy.decide(caller, uses([read({ carried: false })]));
    expect(leftOut.withheld).toEqual([]);
    expect(leftOut.receivedCounts).toEqual([]);
  });

  it('refuses a request that sends an item in a running window, counting the attempt as a hit', () => {
    const { policy, recorded } = policyWith([operation]);
    const decision = policy.decide(caller, uses([], [], [operation]));
    expect(decision.refused).toEqual([operation]);
    expect(decision.refusal?.error.code).toBe('BROWNOUT');
    expect(recorded.map((count) => `${count.item.id} ${count.kind} ${count.apiKeyId}`)).toEqual([
      'rest.listProducts brownout 7',
    ]);
  });

  it('refuses for a sent item while a received one is in a window too, and trims nothing', () => {
    const { policy, recorded } = policyWith([operation, amount]);
    const decision = policy.decide(caller, uses([read()], [], [operation]));
    expect(decision.refused).toEqual([operation]);
    expect(decision.refusal?.scope).toBe('operation');
    expect(decision.withheld).toEqual([amount]);
    const applied = policy.settle(decision, false);
    expect(applied).toEqual({ signalled: [operation], withheld: [] });
    expect(recorded.map((count) => `${count.item.id} ${count.kind}`)).toEqual(['rest.listProducts brownout']);
  });

  it('refuses an input as an input', () => {
    const parameter = item('rest.listOrders.query.hasCoupon', {
      match: { on: 'parameter', operationId: 'listOrders', in: 'query', name: 'hasCoupon' },
    });
    const { policy } = policyWith([parameter]);
    expect(policy.decide(caller, uses([], [], [parameter])).refusal?.scope).toBe('input');
  });

  it('matches items by id, whatever copy of the registry they come from', () => {
    const { policy } = policyWith([{ ...amount }]);
    expect(policy.decide(caller, uses([read()])).withheld).toEqual([amount]);
  });

  it('records what the answer counts only once it was delivered', () => {
    const { policy, recorded } = policyWith();
    policy.settle(policy.decide(caller, uses([read()])), false);
    expect(recorded).toEqual([]);
    policy.settle(policy.decide(caller, uses([read()])), true);
    expect(recorded.map((count) => count.kind)).toEqual(['use']);
  });
});
