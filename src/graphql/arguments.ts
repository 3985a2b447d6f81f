import { GraphQLError } from 'graphql';
import type { Caller } from '../core/caller.js';
import { DomainError, type ErrorCode } from '../core/errors.js';
import type { Address } from '../core/model.js';
import type { GraphQLContext } from './context.js';

/** The caller, or UNAUTHENTICATED for an anonymous request. */
export function callerOf(context: GraphQLContext): Caller {
  if (!context.caller) {
    throw new GraphQLError('This field needs an API key: send `Authorization: Bearer <key>`.', {
      extensions: { code: 'UNAUTHENTICATED' },
    });
  }
  return context.caller;
}

/** A GraphQL `ID` as the service's positive integer id; anything else names nothing. */
export function idOf(value: string | number, notFound: ErrorCode, what: string): number {
  const text = String(value);
  if (!/^[1-9]\d{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new DomainError(notFound, `There is no ${what} ${text}.`);
  }
  return Number(text);
}

/** Optional scalar args: GraphQL gives `null` for an explicit null, the core wants it left out or `null`. */
export const given = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/** The core's address from an `AddressInput`. */
export const address = (input: { zipCode: string; line1: string; line2?: string | null }): Address => ({
  zipCode: input.zipCode,
  line1: input.line1,
  line2: input.line2 ?? null,
});

/**
 * Runs a create under the mutation's `idempotencyKey` (if any), in the caller's scope and under the core's
 * operation name: the same store and keys as REST's `Idempotency-Key`.
 */
export async function idempotent<T>(
  context: GraphQLContext,
  key: string | null | undefined,
  operation: string,
  input: unknown,
  work: () => Promise<T>,
): Promise<T> {
  const { result } = await context.core.idempotency.run(callerOf(context), key ?? undefined, operation, input, work);
  return result;
}
