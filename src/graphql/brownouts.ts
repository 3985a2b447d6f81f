/**
 * Brownouts in GraphQL (spec §7.2 partial success): during a running window, a deprecated field resolves
 * to `null` with a `BROWNOUT` error at its path, and so does a field given a deprecated argument; the rest
 * of the operation is answered. The resolvers of the registry's deprecated fields and arguments are
 * wrapped once, at start; the check is one map lookup per resolved value of those fields only.
 */
import { defaultFieldResolver, type GraphQLFieldResolver } from 'graphql';
import type { BrownoutService } from '../core/brownouts.js';
import type { DeprecationRegistry, GraphqlMatch } from '../core/deprecation-registry.js';

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
    fields[match.field] = (parent: unknown, args: Record<string, unknown>, context: unknown, info: never) => {
      if (argument === undefined || args[argument] !== undefined) {
        const refusal = brownouts.refusal([item.id]);
        if (refusal) throw refusal.error;
      }
      return resolve(parent, args, context, info);
    };
  }
  return wrapped as T;
}
