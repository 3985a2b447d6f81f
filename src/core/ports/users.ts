import type { User } from '../shared/index.js';
import type { KeysetQuery } from './keyset-query.js';

/** The writable fields of a user. */
export type UserFields = Omit<User, 'id' | 'createdAt' | 'lastLoginAt' | 'version'>;

/** Users. */
export interface UserStore {
  get(id: number): Promise<User | undefined>;
  getMany(ids: readonly number[]): Promise<User[]>;
  list(query: KeysetQuery<Record<string, never>>): Promise<User[]>;
  count(): Promise<number>;
  insert(user: UserFields): Promise<User | 'email-taken'>;
  /** Writes the fields if the user is still at `version`. */
  update(id: number, version: number, user: UserFields): Promise<User | 'stale' | 'email-taken'>;
  /** Deletes the user and revokes their keys, unless they have orders. */
  delete(id: number, version: number): Promise<'deleted' | 'stale' | 'has-orders'>;
}
