/**
 * The deprecation signals of GraphQL: every deprecated or watched item an operation uses (a field it
 * selects, an argument, input field or enum value it sends, inline or in variables) is counted per caller,
 * and the deprecated ones are listed in the response's `extensions.deprecations` with their dates,
 * reference link and announced brownout windows. Selecting a watched field's replacement counts as a
 * `replacement` use of it. During a running brownout window, a used item is counted as a brownout hit
 * instead (fields and arguments then resolve to null with a `BROWNOUT` error: ./brownouts.ts); an input
 * field or enum value in a window refuses the whole operation with `BROWNOUT`, as it cannot be nulled.
 */
import {
  type DocumentNode,
  GraphQLError,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  TypeInfo,
  typeFromAST,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { BrownoutService } from '../core/brownouts.js';
import type { DeprecationRegistry, RegistryItem } from '../core/deprecation-registry.js';
import type { UsageKind } from '../core/ports/usage.js';
import type { UsageRecorder } from '../core/usage-recorder.js';
import type { Metrics } from '../observability/metrics.js';
import type { GraphQLContext } from './context.js';

/** What the plugin needs. */
export interface DeprecationSignalsOptions {
  registry: DeprecationRegistry;
  metrics: Metrics;
  recorder?: UsageRecorder;
  brownouts?: Pick<BrownoutService, 'refusal' | 'announced'>;
}

type Context = GraphQLContext & { clientName: string };

/** Counts uses of registry items and lists the deprecated ones in `extensions.deprecations`. */
export function useDeprecationSignals({
  registry,
  metrics,
  recorder,
  brownouts,
}: DeprecationSignalsOptions): Plugin<Context> {
  const items = new Map<string, RegistryItem>();
  const replacements = new Map<string, RegistryItem>();
  for (const item of registry.items) {
    if (item.protocol !== 'graphql') continue;
    const name = item.id.slice('graphql.'.length);
    items.set(name, item);
    const match = item.match;
    if (item.replacement && 'type' in match) replacements.set(`${match.type}.${item.replacement}`, item);
  }
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (items.size === 0) return;
      const context = args.contextValue as Context;
      const used = new Map<string, { item: RegistryItem; kind: UsageKind }>();
      const note = (name: string) => {
        const item = items.get(name);
        if (item) used.set(`${item.id} use`, { item, kind: 'use' });
        const replaced = replacements.get(name);
        if (replaced) used.set(`${replaced.id} replacement`, { item: replaced, kind: 'replacement' });
      };
      for (const name of namesUsed(args.schema, args.document, args.variableValues ?? {})) note(name);
      // Items in a running window count as brownout hits (fields and arguments are nulled by their
      // resolvers, ./brownouts.ts); an input field or enum value in one refuses the operation.
      const refusal = brownouts?.refusal(
        [...used.values()].filter(({ kind }) => kind === 'use').map(({ item }) => item.id),
      );
      for (const use of used.values()) {
        if (use.kind === 'use' && refusal?.blocked.includes(use.item)) use.kind = 'brownout';
        metrics.deprecatedUsage.inc({ item: use.item.id, kind: use.kind });
        recorder?.record({
          item: use.item.id,
          apiKeyId: context.caller?.apiKeyId ?? 0,
          client: context.clientName,
          kind: use.kind,
        });
      }
      const unnullable = refusal?.blocked.filter((item) => !nullable(item)) ?? [];
      if (refusal && unnullable.length > 0) {
        const { code, detail } = (brownouts?.refusal(unnullable.map((item) => item.id)) ?? refusal).error;
        setResultAndStopExecution({ data: null, errors: [new GraphQLError(detail, { extensions: { code } })] });
        return;
      }
      const deprecated = [...used.values()]
        .filter(({ item, kind }) => kind !== 'replacement' && item.status === 'deprecated')
        .map(({ item }) => ({
          item: item.id,
          name: item.name,
          deprecatedOn: item.deprecated,
          sunset: item.sunset,
          reason: item.reason,
          link: item.link,
          brownouts: (brownouts?.announced(item.id) ?? []).map((window) => ({
            startsAt: window.startsAt.toISOString(),
            endsAt: window.endsAt.toISOString(),
          })),
        }));
      if (deprecated.length === 0) return;
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return;
          setResult({ ...result, extensions: { ...result.extensions, deprecations: deprecated } });
        },
      };
    },
  };
}

/** Whether a brownout of the item can null a field (fields and arguments) rather than refuse the operation. */
const nullable = (item: RegistryItem) => item.match.on === 'field' || item.match.on === 'argument';

/** What a document selects and sends inline, and the input types of its variables: the same on every request. */
interface DocumentUses {
  names: ReadonlySet<string>;
  variables: Array<{ name: string; type: GraphQLInputType }>;
}

/** Per parsed document (Yoga's parser cache hands the same DocumentNode to every request with the same text). */
const usesByDocument = new WeakMap<DocumentNode, DocumentUses>();

/**
 * The schema coordinates an operation uses: `Type.field` selected, `Type.field.arg` sent, `Input.field`
 * and `Enum.VALUE` sent inline or through variables. The walk over the document is done once per document;
 * only the variables are read on each request.
 */
export function namesUsed(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>) {
  let uses = usesByDocument.get(document);
  if (!uses) {
    uses = documentUses(schema, document);
    usesByDocument.set(document, uses);
  }
  if (uses.variables.length === 0) return uses.names;
  const found = new Set(uses.names);
  for (const { name, type } of uses.variables) valueUses(type, variables[name], found);
  return found;
}

/** The input fields and enum values a variable's value sends. */
function valueUses(type: GraphQLInputType, value: unknown, found: Set<string>, depth = 0): void {
  if (value === null || value === undefined || depth > 20) return;
  if (isNonNullType(type)) {
    valueUses(type.ofType, value, found, depth);
    return;
  }
  if (isListType(type)) {
    for (const entry of Array.isArray(value) ? value : [value]) valueUses(type.ofType, entry, found, depth + 1);
    return;
  }
  if (isEnumType(type) && typeof value === 'string') found.add(`${type.name}.${value}`);
  if (isInputObjectType(type) && typeof value === 'object') {
    const fields = type.getFields();
    for (const [name, member] of Object.entries(value as Record<string, unknown>)) {
      const field = fields[name];
      if (!field) continue;
      found.add(`${type.name}.${name}`);
      valueUses(field.type, member, found, depth + 1);
    }
  }
}

function documentUses(schema: GraphQLSchema, document: DocumentNode): DocumentUses {
  const names = new Set<string>();
  const variables: DocumentUses['variables'] = [];
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      VariableDefinition(node) {
        const type = typeFromAST(schema, node.type as never) as GraphQLInputType | undefined;
        if (type) variables.push({ name: node.variable.name.value, type });
      },
      Field() {
        const field = typeInfo.getFieldDef();
        const parent = typeInfo.getParentType();
        if (field && parent) names.add(`${parent.name}.${field.name}`);
      },
      Argument() {
        const argument = typeInfo.getArgument();
        const field = typeInfo.getFieldDef();
        const parent = typeInfo.getParentType();
        if (argument && field && parent) names.add(`${parent.name}.${field.name}.${argument.name}`);
      },
      ObjectField(node) {
        const parent = typeInfo.getParentInputType();
        const named = parent ? getNamedType(parent) : undefined;
        if (named && isInputObjectType(named)) names.add(`${named.name}.${node.name.value}`);
      },
      EnumValue(node) {
        const type = typeInfo.getInputType();
        const named = type ? getNamedType(type) : undefined;
        if (named && isEnumType(named)) names.add(`${named.name}.${node.value}`);
      },
    }),
  );
  return { names, variables };
}
