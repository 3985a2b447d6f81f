import type { IdempotencyService } from '../idempotency/index.js';
import type { Store } from '../ports/index.js';
import type { OrderDraft } from '../shared/index.js';
import { actingFor, type Caller, canSee, DomainError, sumMinor, userNotFound } from '../shared/index.js';
import { priceLines } from './order-lines.js';
import type { OrderLine } from './order-placement.js';

/** A new draft: its lines, and for an admin the user it is for. */
export interface DraftInput {
  items: OrderLine[];
  userId?: number;
}

/** Order drafts: baskets priced when made, immutable, placed once as an order. */
export type DraftService = ReturnType<typeof createDraftService>;

/** Creates the draft service. */
export function createDraftService({
  store,
  idempotency,
  maxItemQuantity,
}: {
  store: Pick<Store, 'drafts' | 'users' | 'products'>;
  idempotency: IdempotencyService;
  /** The most units of one order item, once lines of one product are merged. */
  maxItemQuantity: number;
}) {
  return {
    /**
     * Makes a draft for the caller (or, for an admin, for `userId`, which admins must give); idempotent
     * per key.
     */
    create: idempotency.useCase('drafts.create', async (caller: Caller, input: DraftInput): Promise<OrderDraft> => {
      const userId = actingFor(caller, input.userId, { admin: 'makes a draft', customer: 'make drafts' });
      if (!(await store.users.get(userId))) {
        throw userNotFound(userId, '/userId');
      }
      const items = await priceLines(store, input.items, maxItemQuantity);
      return store.drafts.insert(userId, items, sumMinor(items.map((line) => line.amount)));
    }),

    /** One draft of the caller (any for admins). */
    async get(caller: Caller, id: number): Promise<OrderDraft> {
      const draft = await store.drafts.get(id);
      if (!draft || !canSee(caller, draft.userId))
        throw new DomainError('DRAFT_NOT_FOUND', `There is no order draft ${id}.`);
      return draft;
    },
  };
}
