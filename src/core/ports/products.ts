import type { Product, Rating } from '../shared/index.js';
import type { KeysetQuery } from './keyset-query.js';

/** The catalog. */
export interface ProductStore {
  get(id: number): Promise<Product | undefined>;
  getMany(ids: readonly number[]): Promise<Product[]>;
  list(query: KeysetQuery<Record<string, never>>): Promise<Product[]>;
  count(): Promise<number>;
  insert(
    product: Omit<Product, 'id' | 'createdAt' | 'rating' | 'ratingCount'>,
    stock: number,
  ): Promise<Product | 'sku-taken'>;
}

/** Ratings of products by users. */
export interface RatingStore {
  get(productId: number, userId: number): Promise<Rating | undefined>;
  /** Creates or replaces the user's rating of the product. */
  put(
    productId: number,
    userId: number,
    score: number,
    comment: string | null,
  ): Promise<{ rating: Rating; created: boolean }>;
}
