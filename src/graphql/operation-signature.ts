/**
 * The signature of a GraphQL operation, as the request-shape record keeps it (docs/decisions.md §13): the
 * operation and the fragments it uses, with every literal a typed placeholder (`0`, `0.0`, `""`; enum and
 * Boolean literals and the member names of input-object literals kept, list items deduplicated), aliases
 * dropped, selections, arguments, directives, variables and input members sorted, and ignored characters
 * removed. Two requests that differ only in values, aliases, order or layout have one signature, and the
 * signature is still a document that can be validated against a schema: impact analysis asks whether it
 * validates against a candidate contract. It is never executed.
 */
import { createHash } from 'node:crypto';
import {
  type ASTNode,
  type DocumentNode,
  Kind,
  type OperationDefinitionNode,
  print,
  type SelectionNode,
  separateOperations,
  stripIgnoredCharacters,
  type ValueNode,
  visit,
} from 'graphql';

/** A signature and its hash (hex SHA-256 of the text). */
export interface OperationSignature {
  hash: string;
  signature: string;
}

const signatures = new WeakMap<DocumentNode, Map<string, OperationSignature>>();

/** The signature of the operation `operationName` selects (or the only one); cached per parsed document. */
export function operationSignature(document: DocumentNode, operationName?: string | null): OperationSignature {
  let byName = signatures.get(document);
  if (!byName) {
    byName = new Map();
    signatures.set(document, byName);
  }
  const key = operationName ?? '';
  let found = byName.get(key);
  if (!found) {
    const signature = signatureOf(document, operationName);
    found = { hash: createHash('sha256').update(signature).digest('hex'), signature };
    byName.set(key, found);
  }
  return found;
}

function signatureOf(document: DocumentNode, operationName?: string | null): string {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const chosen = operationName
    ? operations.find((operation) => operation.name?.value === operationName)
    : operations.length === 1
      ? operations[0]
      : undefined;
  // Only the chosen operation and the fragments it uses (separateOperations keys them by name, '' if none).
  const own = chosen ? (separateOperations(document)[chosen.name?.value ?? ''] ?? document) : document;
  const normalised = visit(own, {
    Field: { leave: (node) => ({ ...node, alias: undefined, arguments: sortByName(node.arguments) }) },
    Directive: { leave: (node) => ({ ...node, arguments: sortByName(node.arguments) }) },
    SelectionSet: { leave: (node) => ({ ...node, selections: sortSelections(node.selections) }) },
    OperationDefinition: {
      leave: (node) => ({
        ...node,
        variableDefinitions: sortBy(node.variableDefinitions, (v) => v.variable.name.value),
        directives: sortByName(node.directives),
      }),
    },
    IntValue: () => ({ kind: Kind.INT, value: '0' }),
    FloatValue: () => ({ kind: Kind.FLOAT, value: '0.0' }),
    StringValue: () => ({ kind: Kind.STRING, value: '' }),
    ObjectValue: { leave: (node) => ({ ...node, fields: sortByName(node.fields) }) },
    ListValue: { leave: (node) => ({ ...node, values: unique(node.values) }) },
  });
  const definitions = sortBy(normalised.definitions, (definition) =>
    definition.kind === Kind.OPERATION_DEFINITION ? '' : `1${print(definition)}`,
  ) as DocumentNode['definitions'];
  return stripIgnoredCharacters(print({ ...normalised, definitions }));
}

function sortBy<T>(nodes: readonly T[] | undefined, key: (node: T) => string): T[] | undefined {
  if (!nodes) return nodes;
  return [...nodes].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function sortByName<T extends { name: { value: string } }>(nodes: readonly T[] | undefined): T[] | undefined {
  return sortBy(nodes, (node) => node.name.value);
}

/** Fields by name (then as printed), then fragment spreads, then inline fragments; repeats after dropping aliases go. */
function sortSelections(selections: readonly SelectionNode[]): SelectionNode[] {
  const keyed = new Map<string, SelectionNode>();
  for (const selection of selections) {
    const order = selection.kind === Kind.FIELD ? 0 : selection.kind === Kind.FRAGMENT_SPREAD ? 1 : 2;
    keyed.set(`${order}${print(selection as ASTNode)}`, selection);
  }
  return [...keyed.keys()].sort().map((key) => keyed.get(key) as SelectionNode);
}

function unique(values: readonly ValueNode[]): ValueNode[] {
  const seen = new Map<string, ValueNode>();
  for (const value of values) seen.set(print(value), value);
  return [...seen.keys()].sort().map((key) => seen.get(key) as ValueNode);
}
