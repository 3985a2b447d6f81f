/** Which registry items a finding of the gate's diffs is about. */
import type { DeprecationRegistry, RestMatch } from '@order-api/contract-registry';
import { restMatcher } from '@order-api/contract-registry/matching';
import type { Change } from './model.js';

const OPERATION = /^(GET|PUT|POST|PATCH|DELETE) (\S+)/;

/** The operation a finding is about: named first in its item, or (schema findings) in its message. */
export const operationOf = (change: Pick<Change, 'item' | 'message'>) =>
  OPERATION.exec(change.item)?.[0] ?? /\bof ((?:GET|PUT|POST|PATCH|DELETE) \S+)/.exec(change.message)?.[1];

/** `METHOD /path` → operationId, from an OpenAPI document. */
export function operationIds(document: Record<string, unknown>): Map<string, string> {
  type Operation = { operationId?: string } | undefined;
  const ids = new Map<string, string>();
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [route, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation?.operationId) ids.set(`${method.toUpperCase()} ${route}`, operation.operationId);
    }
  }
  return ids;
}

/**
 * The deprecation registry ids a finding is about (what the usage is measured under): the same coordinates
 * for GraphQL and proto; for OpenAPI the operation, the parameter, or a property of the same name that the
 * finding's operation can carry. The gate checks a retirement's `registryItem` with it, and impact analysis
 * looks up callers with it.
 */
export function registryIdsOf(
  change: Change,
  registry: DeprecationRegistry,
  openapi: Record<string, unknown>,
): string[] {
  const items = registry.items.filter(
    (item) => item.protocol === { openapi: 'rest', graphql: 'graphql', proto: 'grpc' }[change.contract],
  );
  if (change.contract === 'graphql')
    return items.filter((item) => item.id === `graphql.${change.item}`).map((i) => i.id);
  if (change.contract === 'proto') {
    const rpc = /RPC "(\w+)" on service "(\w+)"/.exec(change.message);
    const coordinates = rpc ? `${rpc[2]}.${rpc[1]}` : change.item;
    return items.filter((item) => item.id.endsWith(`.${coordinates}`)).map((i) => i.id);
  }
  const operation = operationOf(change);
  const operationId = operation ? operationIds(openapi).get(operation) : undefined;
  const signals = restMatcher(registry, openapi);
  return items
    .filter((item) => {
      const match = item.match as RestMatch;
      if (item.id === `rest.${change.item}`) return true;
      if (match.on === 'operation') return item.name === change.item;
      if (match.on === 'parameter') return change.item === `${operation} ${match.in}:${match.name}`;
      // A retired version covers the removal of every operation under it.
      if (match.on === 'version') return ` ${operation ?? change.item}`.includes(` /${match.version}/`);
      // An event type is retired by removing its webhook (`webhook order.updated POST`); its payload's
      // members are items of their own.
      if (match.on === 'event')
        return change.rule === 'webhook-removed' && change.item.startsWith(`webhook ${match.type} `);
      const last = change.item.split(/[ .:]/).pop();
      return (
        last === match.path.at(-1) &&
        operationId !== undefined &&
        signals.operationsUsing(item.id).includes(operationId)
      );
    })
    .map((item) => item.id);
}
