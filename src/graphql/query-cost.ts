import {
  type DocumentNode,
  type FragmentDefinitionNode,
  Kind,
  type OperationDefinitionNode,
  type SelectionNode,
} from 'graphql';
import { MAX_PAGE_SIZE } from '../core/shared/paging.js';

/** The cost model of the cost limit (graphql-armor's defaults): what the rate budget charges too. */
const OBJECT_COST = 2;
const SCALAR_COST = 1;
const DEPTH_FACTOR = 1.5;

/**
 * The calculated cost of the operation a request runs (graphql-armor's model): 2 per object field, 1 per
 * scalar, ×1.5 per nesting level, a list field multiplied by its `first`/`last`, whether a literal or a
 * variable, and as the list is served: cut to `maxListSize` (a page holds at most 100, so `first: 2000`
 * costs what `first: 100` costs). Fragments count where they are spread; introspection costs nothing.
 */
export function operationCost(
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
  maxListSize = MAX_PAGE_SIZE,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  let operation: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    if (definition.kind === Kind.OPERATION_DEFINITION && (!operationName || definition.name?.value === operationName)) {
      operation ??= definition;
    }
  }
  if (!operation) return 0;

  const multiplierOf = (selection: SelectionNode): number => {
    if (selection.kind !== Kind.FIELD) return 1;
    for (const argument of selection.arguments ?? []) {
      if (argument.name.value !== 'first' && argument.name.value !== 'last') continue;
      const value =
        argument.value.kind === Kind.INT
          ? Number.parseInt(argument.value.value, 10)
          : argument.value.kind === Kind.VARIABLE
            ? Number(variables?.[argument.value.name.value])
            : Number.NaN;
      return Number.isFinite(value) && value > 1 ? Math.min(value, maxListSize) : 1;
    }
    return 1;
  };

  // A fragment spread counts as a scalar plus its fragment as one more nested object, and an inline
  // fragment as an object, exactly as the cost limit counts them.
  const costOf = (selection: SelectionNode, seen: ReadonlySet<string>): number => {
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = fragments.get(selection.name.value);
      if (!fragment || seen.has(fragment.name.value)) return SCALAR_COST;
      const inner = new Set(seen).add(fragment.name.value);
      return SCALAR_COST + DEPTH_FACTOR * objectCost(fragment.selectionSet.selections, inner);
    }
    if (!selection.selectionSet) return SCALAR_COST;
    return objectCost(selection.selectionSet.selections, seen) * multiplierOf(selection);
  };
  const objectCost = (children: readonly SelectionNode[], seen: ReadonlySet<string>): number =>
    children.reduce((sum, child) => sum + DEPTH_FACTOR * costOf(child, seen), OBJECT_COST);

  // Introspection (`__schema`, `__type`) reads the schema, bounded by its size, never data: free, as in
  // graphql-armor (`ignoreIntrospection`), so that GraphiQL and code generators can load the schema.
  const introspection = (selection: SelectionNode) =>
    selection.kind === Kind.FIELD && (selection.name.value === '__schema' || selection.name.value === '__type');
  return operation.selectionSet.selections.reduce(
    (sum, selection) => sum + (introspection(selection) ? 0 : costOf(selection, new Set())),
    0,
  );
}
