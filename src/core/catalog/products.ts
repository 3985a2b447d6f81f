import type { IdempotencyService } from '../idempotency/index.js';
import type { Store } from '../ports/index.js';
import type { CursorCodec, Minor, Product, Rating } from '../shared/index.js';
import {
  type Caller,
  DomainError,
  type ListInput,
  type Page,
  parseSort,
  readPage,
  requireAdmin,
} from '../shared/index.js';

/** A new product; `price` in minor units. */
export interface ProductInput {
  name: string;
  sku: string;
  price: Minor;
  imageUrl?: string | null;
  stock?: number;
}

/** Sort keys of the product list. */
export const PRODUCT_SORT_FIELDS = ['id', 'name'] as const;

/** The catalog rules: anyone reads products, admins create them, users rate them. */
export type ProductService = ReturnType<typeof createProductService>;

/** What the product service reads and writes. */
export interface ProductServiceDeps {
  store: Pick<Store, 'products' | 'ratings'>;
  cursors: CursorCodec;
  idempotency: IdempotencyService;
}

/** Creates the product service. */
export function createProductService({ store, cursors, idempotency }: ProductServiceDeps) {
  async function product(id: number): Promise<Product> {
    const found = await store.products.get(id);
    if (!found) throw new DomainError('PRODUCT_NOT_FOUND', `There is no product ${id}.`);
    return found;
  }

  return {
    /** A page of products (no key needed). */
    async list(input: ListInput = {}): Promise<Page<Product>> {
      const sort = parseSort(input.sort, PRODUCT_SORT_FIELDS, 'id');
      return readPage({
        cursors,
        sort,
        size: input.size,
        cursor: input.cursor,
        filters: {},
        withTotal: input.withTotal,
        fetch: (after, limit) => store.products.list({ filters: {}, sort, limit, ...(after ? { after } : {}) }),
        count: () => store.products.count(),
        keys: (item, keys) => keys.map(({ field }) => (field === 'name' ? item.name : item.id)),
      });
    },

    /** One product (no key needed). */
    get: product,

    /** Several products by id, for batched reads. */
    getMany: (ids: readonly number[]) => store.products.getMany(ids),

    /** Creates a product with its initial stock (admins only); idempotent per key. */
    create: idempotency.useCase('products.create', async (caller: Caller, input: ProductInput): Promise<Product> => {
      requireAdmin(caller, 'create products');
      const created = await store.products.insert(
        { name: input.name, sku: input.sku, price: input.price, imageUrl: input.imageUrl ?? null },
        input.stock ?? 0,
      );
      if (created === 'sku-taken') throw skuTaken(input.sku);
      return created;
    }),

    /** The aggregate rating of a product. */
    async rating(id: number): Promise<{ productId: number; average: number | null; count: number }> {
      const found = await product(id);
      return { productId: found.id, average: found.rating, count: found.ratingCount };
    },

    /** Creates or replaces the caller's rating of a product (one per user and product). */
    async rate(
      caller: Caller,
      productId: number,
      input: { score: number; comment?: string | null },
    ): Promise<{ rating: Rating; created: boolean }> {
      await product(productId);
      return store.ratings.put(productId, caller.userId, input.score, input.comment ?? null);
    },

    /** The caller's own rating of a product. */
    async myRating(caller: Caller, productId: number): Promise<Rating> {
      await product(productId);
      const rating = await store.ratings.get(productId, caller.userId);
      if (!rating) throw new DomainError('NOT_FOUND', `You have not rated product ${productId}.`);
      return rating;
    },
  };
}

function skuTaken(sku: string): DomainError {
  return new DomainError('SKU_TAKEN', `Another product has the SKU ${sku}.`, [
    { in: 'body', name: '/sku', message: 'is taken by another product' },
  ]);
}
