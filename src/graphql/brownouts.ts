/**
 * Brownouts in GraphQL (spec §7.2 partial success): a field the core's deprecation policy withheld, or
 * a field given an argument it refused (`context.brownedOut`, set by ./use-deprecation-signals.ts),
 * resolves to `null` with a `BROWNOUT` error at its path; the rest of the operation is answered. The
 * resolvers of the registry's deprecated fields and arguments are wrapped once, at start; the check is one
 * set lookup per resolved value of those fields only.
 */

import type { DeprecationRegistry, GraphqlMatch, RegistryItem } from '@order-api/contract-registry';
import { defaultFieldResolver, type GraphQLFieldResolver } from 'graphql';
import type { BrownoutService } from '../core/lifecycle/brownouts/brownouts.js';
import { DomainError } from '../core/shared/errors.js';
import type { GraphQLContext } from './context.js';

type Resolvers = Record<string, Record<string, unknown>>;

/** The resolver map with the deprecated fields and arguments of the registry checked for brownouts. */
export function withBrownouts<T extends Resolvers>(
  map: T,
  registry: DeprecationRegistry,
  brownouts: Pick<BrownoutService, 'refusal'>,
): T {
  const wrapped: Resolvers = Object.fromEntries(Object.entries(map).map(([type, fields]) => [type, { ...fields }]));
  for (const item of registry.items) {
    if (item.protocol !== 'graphql' || item.status !== 'deprecated') continue;
    const match = item.match as GraphqlMatch;
    if (match.on !== 'field' && match.on !== 'argument') continue;
    wrapped[match.type] ??= {};
    const fields = wrapped[match.type] as Record<string, unknown>;
    const resolve = (fields[match.field] ?? defaultFieldResolver) as GraphQLFieldResolver<unknown, unknown>;
    const argument = match.on === 'argument' ? match.argument : undefined;
    fields[match.field] = (parent: unknown, args: Record<string, unknown>, context: GraphQLContext, info: never) => {
      if (context.brownedOut?.has(item.id) && (argument === undefined || args[argument] !== undefined)) {
        throw brownouts.refusal([item.id])?.error ?? brownoutOf(item);
      }
      return resolve(parent, args, context, info);
    };
  }
  return wrapped as T;
}

/** The refusal of an item whose window ended between the decision and its field (the decision stands). */
const brownoutOf = (item: RegistryItem) =>
  new DomainError(
    'BROWNOUT',
    `${item.name} (${item.id}) is deprecated and blocked during a brownout; see ${item.link}`,
  );
