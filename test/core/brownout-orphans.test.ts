/**
 * Undoing a deprecation (docs/decisions.md §7): an instance whose registry no longer deprecates an item
 * cancels that item's windows that have not ended, with a note, and never blocks or announces them; the
 * windows of items still deprecated are untouched. Over the real store (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL), with a clock of its own.
 */

import type { DeprecationRegistry, RegistryItem } from '@order-api/contract-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrownoutService } from '../../src/core/lifecycle/brownouts/brownouts.js';
import type { Caller } from '../../src/core/shared/caller.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

const item = (id: string, deprecated: boolean): RegistryItem => ({
  id,
  protocol: 'rest',
  status: deprecated ? 'deprecated' : 'watched',
  name: id,
  deprecated: deprecated ? '2026-11-01' : null,
  sunset: deprecated ? '2027-06-30' : null,
  reason: null,
  replacement: null,
  link: `/docs/deprecations#${id}`,
  match: { on: 'operation', operationId: id.slice(5) },
});
/** The release that deprecated both items, and the next one, which takes back `rest.undone`. */
const before: DeprecationRegistry = { items: [item('rest.undone', true), item('rest.kept', true)] };
const after: DeprecationRegistry = { items: [item('rest.undone', false), item('rest.kept', true)] };
const admin: Caller = { userId: 1, role: 'admin', apiKeyId: null };
const at = (text: string) => new Date(text);

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database?.close());

describe('brownout windows of an item no longer deprecated', () => {
  it('are cancelled with a note at the next start; the windows of a still deprecated item are untouched', async () => {
    let clock = at('2026-11-26T00:00:00Z');
    const now = () => clock;
    const old = createBrownoutService({ store: database.store.brownouts, registry: before, now });
    const schedule = (id: string, start: string, end: string) =>
      old.schedule(admin, { item: id, startsAt: at(start), endsAt: at(end) });
    const running = await schedule('rest.undone', '2026-12-04T10:00:00Z', '2026-12-04T12:00:00Z');
    const announced = await schedule('rest.undone', '2026-12-10T10:00:00Z', '2026-12-10T10:30:00Z');
    const kept = await schedule('rest.kept', '2026-12-04T10:00:00Z', '2026-12-04T12:00:00Z');

    // The release that takes the deprecation back starts while the first window runs.
    clock = at('2026-12-04T11:00:00Z');
    expect(old.refusal(['rest.undone'])?.window.id).toBe(running.id);
    const next = createBrownoutService({ store: database.store.brownouts, registry: after, now });
    await next.refresh();
    // Never blocked nor announced by an instance that does not see the item deprecated, even before the
    // orphans are cancelled.
    expect(next.refusal(['rest.undone'])).toBeUndefined();
    expect(next.announced('rest.undone')).toEqual([]);

    const cancelled = await next.retireOrphans();
    const note = 'rest.undone is no longer deprecated in the contract; window cancelled';
    expect(cancelled.map((window) => window.id).sort()).toEqual([running.id, announced.id].sort());
    for (const id of [running.id, announced.id]) {
      expect(await database.store.brownouts.get(id)).toMatchObject({ cancelledAt: clock, cancelNote: note });
    }
    expect(await database.store.brownouts.get(kept.id)).toMatchObject({ cancelledAt: null, cancelNote: null });
    expect(next.refusal(['rest.kept'])?.window.id).toBe(kept.id);
    expect(next.announced('rest.kept').map((window) => window.id)).toEqual([kept.id]);

    // Every instance of the old release drops them at its next refresh; a second pass cancels nothing.
    await old.refresh();
    expect(old.refusal(['rest.undone'])).toBeUndefined();
    expect(await next.retireOrphans()).toEqual([]);
  });

  it('are left alone when scheduled after the instance started (through one that deprecates the item)', async () => {
    let clock = at('2026-11-26T00:00:00Z');
    const now = () => clock;
    const next = createBrownoutService({ store: database.store.brownouts, registry: after, now });
    clock = at('2026-11-26T01:00:00Z');
    const old = createBrownoutService({ store: database.store.brownouts, registry: before, now });
    const window = await old.schedule(admin, {
      item: 'rest.undone',
      startsAt: at('2026-12-20T10:00:00Z'),
      endsAt: at('2026-12-20T10:30:00Z'),
    });
    expect((await next.retireOrphans()).map(({ id }) => id)).not.toContain(window.id);
    expect(await database.store.brownouts.get(window.id)).toMatchObject({ cancelledAt: null });
  });

  it('looks once: after a call that cancelled them all, later calls query nothing; a failed call is retried', async () => {
    const clock = at('2026-11-26T00:00:00Z');
    let lists = 0;
    let failing = true;
    const counting = {
      ...database.store.brownouts,
      list: (filter: Parameters<typeof database.store.brownouts.list>[0]) => {
        lists += 1;
        if (failing) return Promise.reject(new Error('database restarting'));
        return database.store.brownouts.list(filter);
      },
    };
    const next = createBrownoutService({ store: counting, registry: after, now: () => clock });
    await expect(next.retireOrphans()).rejects.toThrow('database restarting');
    failing = false;
    await next.retireOrphans();
    await next.retireOrphans();
    await next.retireOrphans();
    expect(lists).toBe(2);
  });
});
