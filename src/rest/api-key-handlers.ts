import type { Core } from '../core/index.js';
import type { IssuedKey } from '../core/keys/api-keys.js';
import { apiKeyJson, pageJson } from './mappers.js';
import { json, noContent, type RestHandlerGroup, type Schemas } from './respond.js';
import { callerOf, listInput, pathId } from './validated-request.js';

/** A timestamp of the body (its format already validated against the contract). */
const timeOf = (value: string | null | undefined) =>
  value === undefined ? undefined : value === null ? null : new Date(value);

/** Issuing, listing, reading, rotating and revoking API keys. */
export function createApiKeyHandlers(core: Core) {
  // The secret is shown once: never cache an answer that carries one.
  const withSecret = (request: { c: Parameters<typeof json>[0] }, { apiKey, secret }: IssuedKey, headers = {}) =>
    json(request.c, 201, { ...apiKeyJson(apiKey), key: secret }, { 'Cache-Control': 'no-store', ...headers });

  return {
    async listApiKeys(request) {
      const { userId } = request.query;
      const page = await core.apiKeys.list(callerOf(request), {
        ...listInput(request.query),
        ...(userId ? { userId: Number(userId) } : {}),
      });
      return json(request.c, 200, pageJson(page, apiKeyJson));
    },

    async createApiKey(request) {
      const body = request.body as Schemas['ApiKeyCreate'];
      const expiresAt = timeOf(body.expiresAt);
      const issued = await core.apiKeys.issue(callerOf(request), {
        userId: body.userId,
        role: body.role,
        rateLimit: body.rateLimit ?? null,
        ...(body.label !== undefined ? { label: body.label } : {}),
        ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
        ...(expiresAt !== undefined ? { expiresAt } : {}),
      });
      return withSecret(request, issued);
    },

    async getApiKey(request) {
      return json(request.c, 200, apiKeyJson(await core.apiKeys.get(callerOf(request), pathId(request, 'apiKeyId'))));
    },

    async rotateApiKey(request) {
      const body = (request.body ?? {}) as Schemas['ApiKeyRotation'];
      const overlapUntil = timeOf(body.overlapUntil);
      const expiresAt = timeOf(body.expiresAt);
      const rotated = await core.apiKeys.rotate(callerOf(request), pathId(request, 'apiKeyId'), {
        ...(overlapUntil ? { overlapUntil } : {}),
        ...(expiresAt !== undefined ? { expiresAt } : {}),
      });
      return withSecret(request, rotated, { Location: `${request.base}/api-keys/${rotated.apiKey.id}` });
    },

    async updateApiKey(request) {
      const body = request.body as Schemas['ApiKeyPatch'];
      const id = pathId(request, 'apiKeyId');
      // Merge Patch: an absent member changes nothing, `null` clears the key's own budget.
      const apiKey =
        body.rateLimit === undefined
          ? await core.apiKeys.get(callerOf(request), id)
          : await core.apiKeys.setRateLimit(callerOf(request), id, body.rateLimit);
      return json(request.c, 200, apiKeyJson(apiKey));
    },

    async revokeApiKey(request) {
      await core.apiKeys.revoke(callerOf(request), pathId(request, 'apiKeyId'));
      return noContent(request.c);
    },
  } satisfies RestHandlerGroup;
}
