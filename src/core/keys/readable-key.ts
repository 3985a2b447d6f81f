/**
 * Whose records a caller may read (docs/decisions.md §4): a key's own, whatever its scopes, or, with
 * `keys:read`, another key of its user (any key for an admin). Another user's key is API_KEY_NOT_FOUND, as a
 * key that does not exist, so key ids cannot be probed. Shared by a key's deprecated usage and its request
 * shapes.
 */

import type { ApiKeyStore } from '../ports/index.js';
import type { Caller } from '../shared/index.js';
import { DomainError, requireScope } from '../shared/index.js';

/** Refuses unless the caller may read the records of `apiKeyId`. */
export async function requireReadableKey(
  apiKeys: Pick<ApiKeyStore, 'get'>,
  caller: Caller,
  apiKeyId: number,
): Promise<void> {
  if (apiKeyId !== caller.apiKeyId) requireScope(caller, 'keys:read');
  const key = await apiKeys.get(apiKeyId);
  if (!key || (caller.role !== 'admin' && key.userId !== caller.userId)) {
    throw new DomainError('API_KEY_NOT_FOUND', `There is no API key ${apiKeyId}.`);
  }
}

/** The id of the key making the request (the `me` forms); API_KEY_NOT_FOUND without an issued key. */
export function ownKeyId(caller: Caller): number {
  if (caller.apiKeyId === null) {
    throw new DomainError('API_KEY_NOT_FOUND', 'This request was made without an issued API key.');
  }
  return caller.apiKeyId;
}

/** A key's own records read on a user (GraphQL `me { … }`): only on the caller's own user. */
export function requireOwnUser(caller: Caller, userId: number, field: string, restPath: string): void {
  if (userId !== caller.userId) {
    throw new DomainError(
      'FORBIDDEN',
      `${field} is the calling key's own, read on \`me\`; another key's is read over REST, at \`GET …/api-keys/{apiKeyId}/${restPath}\`.`,
    );
  }
}
