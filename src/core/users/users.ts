import type { IdempotencyService } from '../idempotency/index.js';
import type { Store, UserFields } from '../ports/index.js';
import type { Address, CursorCodec, User } from '../shared/index.js';
import {
  type Caller,
  canSee,
  checkVersion,
  DomainError,
  type ListInput,
  mergePatch,
  type Page,
  parseSort,
  readPage,
  refuseReadOnlyChanges,
  requireAdmin,
  retryStale,
  USER_READ_ONLY,
  userNotFound,
  type WriteConditions,
} from '../shared/index.js';

/** A new user. */
export interface UserInput {
  name: string;
  email: string;
  phone?: string | null;
  address?: Address | null;
  nickname?: string | null;
  marketingAgreed?: boolean;
}

/** A merge patch of a user: absent = unchanged, `null` clears an optional field. */
export type UserPatch = Partial<UserInput>;

/** Sort keys of the user list. */
export const USER_SORT_FIELDS = ['createdAt', 'name', 'id'] as const;

/** The user rules: admins manage users; a customer sees and changes only themself. */
export type UserService = ReturnType<typeof createUserService>;

/** What the user service reads and writes. */
export interface UserServiceDeps {
  store: Pick<Store, 'users'>;
  cursors: CursorCodec;
  idempotency: IdempotencyService;
}

/** Creates the user service. */
export function createUserService({ store, cursors, idempotency }: UserServiceDeps) {
  const visibleUser = (caller: Caller, id: number) => visibleUserIn(store, caller, id);

  function write(
    caller: Caller,
    id: number,
    next: (user: User) => UserFields,
    { ifMatchVersion, echo }: WriteConditions<User> = {},
  ) {
    return retryStale(ifMatchVersion, async () => {
      const user = await visibleUser(caller, id);
      refuseReadOnlyChanges(USER_READ_ONLY, echo, user);
      checkVersion(user, ifMatchVersion, () => stale(id));
      const fields = next(user);
      if (sameFields(fields, user)) return user;
      const updated = await store.users.update(id, user.version, fields);
      if (updated === 'email-taken') throw emailTaken(fields.email);
      if (updated === 'stale') throw stale(id);
      return updated;
    });
  }

  return {
    /** A page of users (admins only). */
    async list(caller: Caller, input: ListInput = {}): Promise<Page<User>> {
      requireAdmin(caller, 'list users');
      const sort = parseSort(input.sort, USER_SORT_FIELDS, '-createdAt');
      return readPage({
        cursors,
        sort,
        size: input.size,
        cursor: input.cursor,
        filters: {},
        withTotal: input.withTotal,
        fetch: (after, limit) => store.users.list({ filters: {}, sort, limit, ...(after ? { after } : {}) }),
        count: () => store.users.count(),
        keys: userKeys,
      });
    },

    /** Creates a user (admins only); idempotent per key. */
    create: idempotency.useCase('users.create', async (caller: Caller, input: UserInput): Promise<User> => {
      requireAdmin(caller, 'create users');
      const created = await store.users.insert(fieldsOf(input));
      if (created === 'email-taken') throw emailTaken(input.email);
      return created;
    }),

    /** One user: any for admins, themself for customers (others are "not found"). */
    get: visibleUser,

    /** Several users by id, for batched reads; invisible ones are left out. */
    async getMany(caller: Caller, ids: readonly number[]): Promise<User[]> {
      return (await store.users.getMany(ids)).filter((user) => canSee(caller, user.id));
    },

    /** Replaces a user's writable fields; optional fields not given are cleared. */
    replace(caller: Caller, id: number, input: UserInput, conditions?: WriteConditions<User>): Promise<User> {
      return write(caller, id, () => fieldsOf(input), conditions);
    },

    /** Changes the given fields of a user (JSON Merge Patch). */
    update(caller: Caller, id: number, patch: UserPatch, conditions?: WriteConditions<User>): Promise<User> {
      return write(caller, id, (user) => merged(user, patch), conditions);
    },

    /** Deletes a user (admins, or the user themself) with their keys; a user with orders is kept. */
    async remove(caller: Caller, id: number, ifMatchVersion?: number): Promise<void> {
      const user = await visibleUser(caller, id);
      checkVersion(user, ifMatchVersion, () => stale(id));
      const outcome = await store.users.delete(id, user.version);
      if (outcome === 'has-orders') {
        throw new DomainError('USER_HAS_ORDERS', `User ${id} has orders and cannot be deleted.`);
      }
      if (outcome === 'stale') throw stale(id);
    },
  };
}

/** One user as the caller may see it: any for admins, themself for customers (others are "not found"). */
async function visibleUserIn(store: Pick<Store, 'users'>, caller: Caller, id: number): Promise<User> {
  const user = await store.users.get(id);
  if (!user || !canSee(caller, user.id)) throw userNotFound(id);
  return user;
}

/** The user's next fields under a merge patch. */
function merged(user: User, patch: UserPatch): UserFields {
  const { name, email, phone, address, nickname, marketingAgreed } = user;
  return mergePatch<UserFields>({ name, email, phone, address, nickname, marketingAgreed }, patch);
}

function userKeys(user: User, keys: ReturnType<typeof parseSort>): Array<string | number> {
  return keys.map(({ field }) =>
    field === 'createdAt' ? user.createdAt.toISOString() : field === 'name' ? user.name : user.id,
  );
}

/** A user's fields from a full input. */
function fieldsOf(input: UserInput): UserFields {
  return {
    name: input.name,
    email: input.email,
    phone: input.phone ?? null,
    address: input.address ?? null,
    nickname: input.nickname ?? null,
    marketingAgreed: input.marketingAgreed ?? false,
  };
}

function sameFields(fields: UserFields, user: User): boolean {
  return (
    fields.name === user.name &&
    fields.email === user.email &&
    fields.phone === user.phone &&
    JSON.stringify(fields.address) === JSON.stringify(user.address) &&
    fields.nickname === user.nickname &&
    fields.marketingAgreed === user.marketingAgreed
  );
}

function emailTaken(email: string): DomainError {
  return new DomainError('EMAIL_TAKEN', `Another user has the e-mail address ${email}.`, [
    { in: 'body', name: '/email', message: 'is taken by another user' },
  ]);
}

function stale(id: number): DomainError {
  return new DomainError('PRECONDITION_FAILED', `User ${id} changed since it was read.`);
}
