import type { Core } from '../core/index.js';
import type { User } from '../core/model.js';
import { etagOf, pageJson, userJson } from './mappers.js';
import {
  address,
  checkReadOnly,
  conditionalGet,
  createOptions,
  type Handler,
  json,
  noContent,
  replayHeader,
  type Schemas,
} from './respond.js';
import { callerOf, ifMatchOf, listInput, pathId, type RestRequest } from './validated-request.js';

const USER_READ_ONLY = ['id', 'createdAt', 'lastLoginAt'] as const;

/** Users, including the caller at /users/me. */
export function createUserHandlers(core: Core): Record<string, Handler> {
  const userResponse = (request: RestRequest, user: User) =>
    json(request.c, 200, userJson(user), { ETag: etagOf(user.version) });

  async function currentUserForWrite(request: RestRequest, body: Record<string, unknown>) {
    const user = await core.users.get(callerOf(request), pathId(request, 'userId'));
    checkReadOnly(body, { ...userJson(user) }, USER_READ_ONLY);
  }

  return {
    async listUsers(request) {
      const page = await core.users.list(callerOf(request), listInput(request.query));
      return json(request.c, 200, pageJson(page, userJson));
    },

    async createUser(request) {
      const input = newUserOf(request.body as Schemas['UserCreate']);
      const { result, replayed } = await core.users.create(callerOf(request), input, createOptions(request));
      return json(request.c, 201, userJson(result), {
        Location: `/v1/users/${result.id}`,
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
      const body = request.body as Schemas['UserReplace'] & Record<string, unknown>;
      await currentUserForWrite(request, body);
      const user = await core.users.replace(
        callerOf(request),
        pathId(request, 'userId'),
        replacementOf(body),
        ifMatchOf(request),
      );
      return userResponse(request, user);
    },

    async updateUser(request) {
      const body = request.body as Schemas['UserPatch'] & Record<string, unknown>;
      await currentUserForWrite(request, body);
      const user = await core.users.update(
        callerOf(request),
        pathId(request, 'userId'),
        patchOf(body),
        ifMatchOf(request),
      );
      return userResponse(request, user);
    },

    async deleteUser(request) {
      await core.users.remove(callerOf(request), pathId(request, 'userId'), ifMatchOf(request));
      return noContent(request.c);
    },
  };
}

function newUserOf(body: Schemas['UserCreate']) {
  return {
    name: body.name,
    email: body.email,
    ...(body.phone !== undefined ? { phone: body.phone } : {}),
    ...(body.address ? { address: address(body.address) } : {}),
    ...(body.nickname !== undefined ? { nickname: body.nickname } : {}),
    ...(body.marketingAgreed !== undefined ? { marketingAgreed: body.marketingAgreed } : {}),
  };
}

function replacementOf(body: Schemas['UserReplace']) {
  return {
    name: body.name,
    email: body.email,
    phone: body.phone ?? null,
    address: body.address ? address(body.address) : null,
    nickname: body.nickname ?? null,
    marketingAgreed: body.marketingAgreed ?? false,
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
