import type { Caller, Core } from '../core/index.js';
import type { User } from '../core/shared/model.js';
import type { WriteConditions } from '../core/shared/versions.js';
import type { UserInput } from '../core/users/users.js';
import { etagOf, pageJson, userJson } from './mappers.js';
import {
  address,
  conditionalGet,
  createOptions,
  json,
  noContent,
  type RestHandlerGroup,
  replayHeader,
  type Schemas,
  versionedWrite,
} from './respond.js';
import { callerOf, ifMatchOf, listInput, pathId } from './validated-request.js';

/** Users, including the caller at /users/me. */
export function createUserHandlers(core: Core) {
  const views = { answer: userJson, full: (user: User) => ({ ...userJson(user) }) };

  return {
    async listUsers(request) {
      const page = await core.users.list(callerOf(request), listInput(request.query));
      return json(request.c, 200, pageJson(page, userJson));
    },

    async createUser(request) {
      const input = userInputOf(request.body as Schemas['UserCreate']);
      const { result, replayed } = await core.users.create(callerOf(request), input, createOptions(request));
      return json(request.c, 201, userJson(result), {
        Location: `${request.base}/users/${result.id}`,
        ETag: etagOf(result.version),
        ...replayHeader(replayed),
      });
    },

    async getCurrentUser(request) {
      const caller = callerOf(request);
      const user = await core.users.get(caller, caller.userId);
      return conditionalGet(request, user.version, () => userJson(user));
    },

    async getUser(request) {
      const user = await core.users.get(callerOf(request), pathId(request, 'userId'));
      return conditionalGet(request, user.version, () => userJson(user));
    },

    async replaceUser(request) {
      // A replacement is a full user, as a new one is; the core clears what it leaves out.
      const replacement = userInputOf(request.body as Schemas['UserReplace']);
      const replace = (caller: Caller, id: number, conditions: WriteConditions<User>) =>
        core.users.replace(caller, id, replacement, conditions);
      return versionedWrite(request, 'userId', replace, views);
    },

    async updateUser(request) {
      const patch = patchOf(request.body as Schemas['UserPatch']);
      const update = (caller: Caller, id: number, conditions: WriteConditions<User>) =>
        core.users.update(caller, id, patch, conditions);
      return versionedWrite(request, 'userId', update, views);
    },

    async deleteUser(request) {
      await core.users.remove(callerOf(request), pathId(request, 'userId'), ifMatchOf(request));
      return noContent(request.c);
    },
  } satisfies RestHandlerGroup;
}

function userInputOf(body: Schemas['UserCreate'] | Schemas['UserReplace']): UserInput {
  return {
    name: body.name,
    email: body.email,
    ...(body.phone !== undefined ? { phone: body.phone } : {}),
    ...(body.address ? { address: address(body.address) } : {}),
    ...(body.nickname !== undefined ? { nickname: body.nickname } : {}),
    ...(body.marketingAgreed !== undefined ? { marketingAgreed: body.marketingAgreed } : {}),
  };
}

function patchOf(body: Schemas['UserPatch']) {
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.email !== undefined ? { email: body.email } : {}),
    ...('phone' in body ? { phone: body.phone ?? null } : {}),
    ...('address' in body ? { address: body.address ? address(body.address) : null } : {}),
    ...('nickname' in body ? { nickname: body.nickname ?? null } : {}),
    ...(body.marketingAgreed !== undefined ? { marketingAgreed: body.marketingAgreed } : {}),
  };
}
