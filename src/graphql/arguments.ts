import type { CreateOptions } from '../core/idempotency/idempotency.js';
import { type Caller, requireCaller } from '../core/shared/caller.js';
import { DomainError, type ErrorCode } from '../core/shared/errors.js';
import type { Address } from '../core/shared/model.js';
import type { GraphQLContext } from './context.js';

/** The caller, or UNAUTHENTICATED for an anonymous request. */
export function callerOf(context: GraphQLContext): Caller {
  return requireCaller(context.caller);
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

/** A create's request options: the mutation's `idempotencyKey` argument and the time budget's abort signal. */
export function createOptions(context: GraphQLContext, idempotencyKey: string | null | undefined): CreateOptions {
  return { idempotencyKey: idempotencyKey ?? undefined, signal: context.timeBudget.signal };
}
