/**
 * Scopes in GraphQL: each field that declares `@scope(name: …)` in contracts/schema.graphql is checked by
 * the core's rule (src/core/shared/scopes.ts) before it resolves, so a key without the scope gets `null` with an
 * `INSUFFICIENT_SCOPE` error at that field, as REST answers 403. The declarations are read from the
 * schema once, at start; the check is one array lookup per resolved value of a declared field.
 */
import { type DocumentNode, defaultFieldResolver, type GraphQLFieldResolver, Kind, parse } from 'graphql';
import type { ScopeDeclaration } from '../core/shared/scope-catalog.js';
import { requireScope, scopeDeclaration } from '../core/shared/scopes.js';
import type { GraphQLContext } from './context.js';

type Resolvers = Record<string, Record<string, unknown>>;

/** The `@scope` of every field that declares one, as `Type.field` → scope. */
export function declaredScopes(typeDefs: string | DocumentNode): Map<string, ScopeDeclaration> {
  const document = typeof typeDefs === 'string' ? parse(typeDefs) : typeDefs;
  const found = new Map<string, ScopeDeclaration>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
    for (const field of definition.fields ?? []) {
      const directive = field.directives?.find((d) => d.name.value === 'scope');
      if (!directive) continue;
      const where = `${definition.name.value}.${field.name.value}`;
      const argument = directive.arguments?.find((a) => a.name.value === 'name')?.value;
      found.set(where, scopeDeclaration(argument?.kind === Kind.STRING ? argument.value : undefined, where));
    }
  }
  return found;
}

/** The resolver map with every field that declares a scope checked by the core's rule first. */
export function withScopes<T extends Resolvers>(map: T, scopes: Map<string, ScopeDeclaration>): T {
  const wrapped: Resolvers = Object.fromEntries(Object.entries(map).map(([type, fields]) => [type, { ...fields }]));
  for (const [where, declared] of scopes) {
    if (declared === 'public') continue;
    const [type, field] = where.split('.') as [string, string];
    wrapped[type] ??= {};
    const fields = wrapped[type] as Record<string, unknown>;
    const subscription = fields[field] as { subscribe?: GraphQLFieldResolver<unknown, GraphQLContext> } | undefined;
    if (subscription?.subscribe) {
      // A subscription field: the scope is checked once, when it is opened.
      const open = subscription.subscribe;
      fields[field] = {
        ...subscription,
        subscribe: (parent: unknown, args: Record<string, unknown>, context: GraphQLContext, info: never) => {
          requireScope(context.caller, declared);
          return open(parent, args, context, info);
        },
      };
      continue;
    }
    const resolve = (fields[field] ?? defaultFieldResolver) as GraphQLFieldResolver<unknown, GraphQLContext>;
    fields[field] = (parent: unknown, args: Record<string, unknown>, context: GraphQLContext, info: never) => {
      requireScope(context.caller, declared);
      return resolve(parent, args, context, info);
    };
  }
  return wrapped as T;
}
