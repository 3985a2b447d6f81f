/**
 * Builds the deprecation registry from the three contracts and reports what is wrong with their
 * deprecations: a deprecated item without a sunset date, a date that is not a real date, a watched id
 * that names nothing, a replacement that names nothing beside its item (or that the contract and
 * watched.yaml name differently). `npm run generate` writes the registry; `npm run contracts:lint` fails on
 * problems.
 *
 * Notations (documented in each contract):
 *   OpenAPI   `deprecated: true` + `x-deprecated-on: YYYY-MM-DD` + `x-sunset: YYYY-MM-DD`
 *             [+ `x-replaced-by: <property, parameter or operationId>`], on an operation of `paths:` or of
 *             `webhooks:` (an event type, replaced by another webhook's operationId), a parameter, a property
 *   GraphQL   `@deprecated(reason: "[Use `<field>`. ]… Deprecated: YYYY-MM-DD. Sunset: YYYY-MM-DD.")`
 *   proto     `[deprecated = true]` / `option deprecated = true;` + the same two dates in its comment
 *             [+ `Replaced by: <field>.`]
 *   watched   contracts/watched.yaml, by item id, with its `replacement`
 *
 * A replacement names an item beside the deprecated one: a property of the same schema (or request
 * body), a parameter of the same operation, an operation, a field of the same type or message, an
 * argument of the same field, a value of the same enum, an rpc of the same service. A watched item keeps
 * its watched.yaml `replacement` when it is deprecated (the contract's notation wins; naming another is a
 * problem), and its watched `reason` when the contract gives none.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type DeprecationRegistry, isRealDate, type RegistryItem, referenceLink } from '@order-api/contract-registry';
import { buildSchema, type GraphQLSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import protobuf from 'protobufjs';
import { parse as parseYaml } from 'yaml';

type Candidate = Omit<RegistryItem, 'status' | 'deprecated' | 'sunset' | 'replacement' | 'link'> & {
  deprecated: boolean;
  /** The raw dates as written, if any. */
  date: unknown;
  since: unknown;
  /** The replacement the contract names beside the deprecation, as written, if any. */
  replacedBy: unknown;
  /** What a replacement of this item may name. */
  siblings: Siblings;
  where: string;
};

/** The items beside an item, which its replacement may name. */
interface Siblings {
  /** What they are, for the lint: `property of schema Order`, `field of type Order` … */
  what: string;
  has(name: string): boolean;
}

const siblingsOf = (what: string, names: () => Iterable<string>): Siblings => ({
  what,
  has: (name) => new Set(names()).has(name),
});

/** A watched.yaml entry of an item of the contracts. */
interface WatchedEntry {
  replacement: string | null;
  reason: string | null;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
const SUNSET_IN_TEXT = /sunset:\s*(\S+?)[.,;)]?(?:\s|$)/i;
const DEPRECATED_IN_TEXT = /deprecated:\s*(\S+?)[.,;)]?(?:\s|$)/i;
/** GraphQL: a deprecation reason that starts with ``Use `<field>`.``. */
const USE_IN_REASON = /^\s*Use `([^`]+)`\./;
/** proto: `Replaced by: <field>.` in the comment. */
const REPLACED_BY_IN_TEXT = /replaced by:\s*`?([^\s`]+?)`?[.,;)]?(?:\s|$)/i;

/** The registry of `contractsDir` and the problems found on the way. */
export function buildRegistry(contractsDir: string): { registry: DeprecationRegistry; problems: string[] } {
  const openapi = parseYaml(readFileSync(path.join(contractsDir, 'openapi.yaml'), 'utf8'));
  const candidates = [
    ...openapiCandidates(openapi),
    ...webhookCandidates(openapi),
    ...versionCandidates(openapi),
    ...graphqlCandidates(buildSchema(readFileSync(path.join(contractsDir, 'schema.graphql'), 'utf8'))),
    // Every package under inventory/ (inventory.v1, and inventory.v2 once a version is cut beside it).
    ...protoFiles(contractsDir).flatMap((file) => protoCandidates(readFileSync(file, 'utf8'))),
  ];
  const problems: string[] = [];
  const byId = new Map<string, Candidate>();
  for (const candidate of candidates) byId.set(candidate.id, candidate);
  const watched = watchedEntries(contractsDir, byId, problems);
  const replacements = new Map<string, string>();
  for (const candidate of candidates) {
    const named = namedReplacement(candidate, problems);
    if (named !== undefined) replacements.set(candidate.id, named);
  }
  const items: RegistryItem[] = [];
  for (const candidate of candidates.filter((c) => c.deprecated)) {
    const date = dateText(candidate.date);
    const since = dateText(candidate.since);
    if (date === undefined) problems.push(`${candidate.where}: deprecated without a sunset date`);
    else if (!isRealDate(date)) problems.push(`${candidate.where}: sunset "${date}" is not a real date (YYYY-MM-DD)`);
    if (since === undefined) problems.push(`${candidate.where}: deprecated without the date it was deprecated on`);
    else if (!isRealDate(since)) {
      problems.push(`${candidate.where}: deprecation date "${since}" is not a real date (YYYY-MM-DD)`);
    } else if (date && isRealDate(date) && since > date) {
      problems.push(`${candidate.where}: deprecated on ${since}, after its sunset ${date}`);
    }
    const real = (text: string | undefined) => (text && isRealDate(text) ? text : null);
    // A watched item that becomes deprecated keeps its watched replacement (and reason, if the contract
    // gives none); the contract's own notation wins.
    const entry = watched.get(candidate.id);
    const own = replacements.get(candidate.id);
    if (own !== undefined && entry?.replacement && entry.replacement !== own) {
      problems.push(
        `${candidate.where}: replaced by "${own}" in the contract, but by "${entry.replacement}" in watched.yaml`,
      );
    }
    const replacement = own ?? entry?.replacement ?? null;
    const reason = candidate.reason ?? entry?.reason ?? null;
    items.push(itemOf({ ...candidate, reason }, 'deprecated', real(since), real(date), replacement));
  }
  for (const [id, { replacement, reason }] of watched) {
    const candidate = byId.get(id) as Candidate;
    if (candidate.deprecated) continue;
    items.push(itemOf({ ...candidate, reason }, 'watched', null, null, replacement));
  }
  items.sort((a, b) => a.id.localeCompare(b.id));
  return { registry: { items }, problems };
}

/** The .proto files of every package under a contracts directory's inventory/, oldest version first. */
export function protoFiles(contractsDir: string): string[] {
  const inventory = path.join(contractsDir, 'inventory');
  if (!existsSync(inventory)) return [];
  return readdirSync(inventory, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.proto'))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .map((file) => path.join(inventory, file));
}

/** The entries of contracts/watched.yaml that name items of the contracts, by item id. */
function watchedEntries(contractsDir: string, byId: Map<string, Candidate>, problems: string[]) {
  const watchedFile = path.join(contractsDir, 'watched.yaml');
  const watched = existsSync(watchedFile)
    ? ((parseYaml(readFileSync(watchedFile, 'utf8')) as { watched?: unknown[] } | null)?.watched ?? [])
    : [];
  const entries = new Map<string, WatchedEntry>();
  for (const [index, entry] of watched.entries()) {
    const { item, replacement, reason } = (entry ?? {}) as Record<string, unknown>;
    const candidate = typeof item === 'string' ? byId.get(item) : undefined;
    // Only the ids of the contracts' items are keys of `byId`: an entry naming anything else names nothing.
    if (!candidate || typeof item !== 'string') {
      problems.push(`watched.yaml #${index + 1}: "${String(item)}" names no item of the contracts`);
      continue;
    }
    if (typeof replacement === 'string' && !candidate.siblings.has(replacement)) {
      problems.push(
        `watched.yaml #${index + 1} ${item}: replacement "${replacement}" names no ${candidate.siblings.what}`,
      );
    }
    entries.set(item, {
      replacement: typeof replacement === 'string' ? replacement : null,
      reason: typeof reason === 'string' ? reason : null,
    });
  }
  return entries;
}

/**
 * The replacement the contract names beside an item's deprecation, if any; a problem when it is not a
 * name, names nothing beside the item, or stands on an item that is not deprecated.
 */
function namedReplacement(candidate: Candidate, problems: string[]): string | undefined {
  const { replacedBy, siblings, where } = candidate;
  if (replacedBy === undefined || replacedBy === null) return undefined;
  if (typeof replacedBy !== 'string' || !replacedBy.trim()) {
    problems.push(`${where}: its replacement must be a name, not ${JSON.stringify(replacedBy)}`);
    return undefined;
  }
  const name = replacedBy.trim();
  if (!candidate.deprecated) {
    problems.push(
      `${where}: names a replacement ("${name}") but is not deprecated (a watched item's replacement goes in watched.yaml)`,
    );
  } else if (!siblings.has(name)) {
    problems.push(`${where}: replacement "${name}" names no ${siblings.what}`);
  }
  return name;
}

function itemOf(
  candidate: Candidate,
  status: RegistryItem['status'],
  deprecated: string | null,
  sunset: string | null,
  replacement: string | null,
): RegistryItem {
  return {
    id: candidate.id,
    protocol: candidate.protocol,
    status,
    name: candidate.name,
    deprecated,
    sunset,
    reason: candidate.reason,
    replacement,
    link: referenceLink(candidate.id),
    match: candidate.match,
  };
}

function dateText(value: unknown): string | undefined {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'string' && value.trim()) return value.trim();
  return undefined;
}

type Json = Record<string, unknown>;

/**
 * The versions of the REST contract (`/vN/` path prefixes), each an item `rest.vN` that every request
 * under it uses; `info.x-versions.vN` (`deprecatedOn`, `sunset`, `replacedBy`, `reason`) deprecates one
 * as a whole, replaced by another declared version.
 */
function versionCandidates(document: Json): Candidate[] {
  const declared = [
    ...new Set(Object.keys((document.paths ?? {}) as Json).flatMap((p) => /^\/(v[1-9][0-9]*)\//.exec(p)?.[1] ?? [])),
  ];
  const marks = (((document.info ?? {}) as Json)['x-versions'] ?? {}) as Record<string, Json>;
  return declared.map((version) => {
    const mark = marks[version] ?? {};
    return {
      id: `rest.${version}`,
      protocol: 'rest',
      name: `/${version} (every operation under it)`,
      reason: typeof mark.reason === 'string' ? mark.reason : null,
      match: { on: 'version', version },
      deprecated: marks[version] !== undefined,
      date: mark.sunset,
      since: mark.deprecatedOn,
      replacedBy: mark.replacedBy,
      siblings: siblingsOf('declared version', () => declared),
      where: `openapi.yaml info.x-versions.${version}`,
    };
  });
}

/**
 * The event types of the REST contract's `webhooks:` section, each an item `rest.<operationId>` (named
 * `webhook <type>`) that every delivery of the type uses; deprecated like any operation, and replaced by
 * another webhook.
 */
function webhookCandidates(document: Json): Candidate[] {
  const found: Candidate[] = [];
  const operationIds: string[] = [];
  const webhooks = siblingsOf('webhook (operationId) of openapi.yaml', () => operationIds);
  for (const [type, pathItem] of Object.entries((document.webhooks ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = pathItem[method] as Json | undefined;
      const operationId = operation?.operationId;
      if (!operation || typeof operationId !== 'string') continue;
      operationIds.push(operationId);
      found.push({
        id: `rest.${operationId}`,
        protocol: 'rest',
        name: `webhook ${type}`,
        reason: typeof operation.description === 'string' ? operation.description.trim() : null,
        match: { on: 'event', type },
        deprecated: operation.deprecated === true,
        date: operation['x-sunset'],
        since: operation['x-deprecated-on'],
        replacedBy: operation['x-replaced-by'],
        siblings: webhooks,
        where: `openapi.yaml webhook ${type} (${operationId})`,
      });
    }
  }
  return found;
}

function openapiCandidates(document: Json): Candidate[] {
  const found: Candidate[] = [];
  const resolve = (value: Json): Json => {
    const ref = value.$ref;
    if (typeof ref !== 'string') return value;
    return ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<Json>((node, key) => (node[key] ?? {}) as Json, document);
  };
  const rest = (
    id: string,
    name: string,
    node: Json,
    match: RegistryItem['match'],
    where: string,
    siblings: Siblings,
  ): Candidate => ({
    id: `rest.${id}`,
    protocol: 'rest',
    name,
    reason: typeof node.description === 'string' ? node.description.trim() : null,
    match,
    deprecated: node.deprecated === true,
    date: node['x-sunset'],
    since: node['x-deprecated-on'],
    replacedBy: node['x-replaced-by'],
    siblings,
    where: `openapi.yaml ${where}`,
  });
  /** Visits the properties of a schema, with the names beside each (the replacements it may name). */
  const properties = (
    schema: Json,
    prefix: string[],
    visit: (path: string[], node: Json, beside: string[]) => void,
  ) => {
    const beside = Object.keys((schema.properties ?? {}) as Json);
    for (const [name, raw] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      visit([...prefix, name], raw, beside);
      if (!raw.$ref && prefix.length < 4) properties(raw, [...prefix, name], visit);
    }
  };
  const of = (owner: string, path: string[]) => [owner, ...path.slice(0, -1)].join('.');
  const operationIds: string[] = [];
  const operations = siblingsOf('operation (operationId) of openapi.yaml', () => operationIds);
  for (const [template, pathItem] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = pathItem[method] as Json | undefined;
      const operationId = operation?.operationId;
      if (!operation || typeof operationId !== 'string') continue;
      operationIds.push(operationId);
      const label = `${method.toUpperCase()} ${template}`;
      found.push(rest(operationId, label, operation, { on: 'operation', operationId }, label, operations));
      const parameters = [...((pathItem.parameters ?? []) as Json[]), ...((operation.parameters ?? []) as Json[])];
      const names = parameters.map((parameter) => resolve(parameter).name as string);
      const beside = siblingsOf(`parameter of ${label}`, () => names);
      for (const parameter of parameters.map(resolve)) {
        const { in: where, name } = parameter as { in: string; name: string };
        found.push(
          rest(
            `${operationId}.${where}.${name}`,
            `${label} ${where} ${name}`,
            parameter,
            { on: 'parameter', operationId, in: where, name },
            `${label} parameter ${name}`,
            beside,
          ),
        );
      }
      const body = ((operation.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
      for (const media of Object.values(body)) {
        const schema = (media.schema ?? {}) as Json;
        if (schema.$ref) continue;
        properties(schema, [], (memberPath, node, members) =>
          found.push(
            rest(
              `${operationId}.body.${memberPath.join('.')}`,
              `${label} body ${memberPath.join('.')}`,
              node,
              { on: 'body', operationId, path: memberPath },
              `${label} body member ${memberPath.join('.')}`,
              siblingsOf(`member of ${of(`the ${label} body`, memberPath)}`, () => members),
            ),
          ),
        );
      }
    }
  }
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  for (const [schemaName, schema] of Object.entries(schemas)) {
    properties(schema, [], (propertyPath, node, beside) =>
      found.push(
        rest(
          `${schemaName}.${propertyPath.join('.')}`,
          `${schemaName}.${propertyPath.join('.')}`,
          node,
          { on: 'property', schema: schemaName, path: propertyPath },
          `schema ${schemaName} property ${propertyPath.join('.')}`,
          siblingsOf(`property of schema ${of(schemaName, propertyPath)}`, () => beside),
        ),
      ),
    );
  }
  return found;
}

function graphqlCandidates(schema: GraphQLSchema): Candidate[] {
  const found: Candidate[] = [];
  const add = (id: string, reason: string | null | undefined, match: RegistryItem['match'], siblings: Siblings) =>
    found.push({
      id: `graphql.${id}`,
      protocol: 'graphql',
      name: id,
      reason: reason ?? null,
      match,
      deprecated: reason != null,
      date: reason ? SUNSET_IN_TEXT.exec(reason)?.[1] : undefined,
      since: reason ? DEPRECATED_IN_TEXT.exec(reason)?.[1] : undefined,
      replacedBy: reason ? USE_IN_REASON.exec(reason)?.[1] : undefined,
      siblings,
      where: `schema.graphql ${id}`,
    });
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type) || isInterfaceType(type)) {
      const fields = siblingsOf(`field of type ${type.name}`, () => Object.keys(type.getFields()));
      for (const field of Object.values(type.getFields())) {
        add(
          `${type.name}.${field.name}`,
          field.deprecationReason,
          { on: 'field', type: type.name, field: field.name },
          fields,
        );
        const args = siblingsOf(`argument of ${type.name}.${field.name}`, () => field.args.map((arg) => arg.name));
        for (const argument of field.args) {
          add(
            `${type.name}.${field.name}.${argument.name}`,
            argument.deprecationReason,
            { on: 'argument', type: type.name, field: field.name, argument: argument.name },
            args,
          );
        }
      }
    } else if (isInputObjectType(type)) {
      const fields = siblingsOf(`field of input ${type.name}`, () => Object.keys(type.getFields()));
      for (const field of Object.values(type.getFields())) {
        add(
          `${type.name}.${field.name}`,
          field.deprecationReason,
          { on: 'input-field', type: type.name, field: field.name },
          fields,
        );
      }
    } else if (isEnumType(type)) {
      const values = siblingsOf(`value of enum ${type.name}`, () => type.getValues().map((value) => value.name));
      for (const value of type.getValues()) {
        add(
          `${type.name}.${value.name}`,
          value.deprecationReason,
          { on: 'enum-value', type: type.name, value: value.name },
          values,
        );
      }
    }
  }
  return found;
}

function protoCandidates(source: string): Candidate[] {
  const found: Candidate[] = [];
  const parsed = protobuf.parse(source, { alternateCommentMode: true, keepCase: true });
  const add = (name: string, object: protobuf.ReflectionObject, match: RegistryItem['match'], siblings: Siblings) => {
    const comment = object.comment ?? null;
    found.push({
      id: `grpc.${name}`,
      protocol: 'grpc',
      name,
      reason: comment,
      match,
      deprecated: object.options?.deprecated === true,
      date: comment ? SUNSET_IN_TEXT.exec(comment)?.[1] : undefined,
      since: comment ? DEPRECATED_IN_TEXT.exec(comment)?.[1] : undefined,
      replacedBy: comment ? REPLACED_BY_IN_TEXT.exec(comment)?.[1] : undefined,
      siblings,
      where: `${parsed.package ?? ''} proto ${name}`,
    });
  };
  const walk = (namespace: protobuf.NamespaceBase) => {
    for (const nested of namespace.nestedArray) {
      const fullName = nested.fullName.replace(/^\./, '');
      if (nested instanceof protobuf.Service) {
        const rpcs = siblingsOf(`rpc of service ${fullName}`, () => nested.methodsArray.map((m) => m.name));
        for (const method of nested.methodsArray) {
          add(`${fullName}.${method.name}`, method, { on: 'rpc', service: fullName, method: method.name }, rpcs);
        }
      } else if (nested instanceof protobuf.Type) {
        const fields = siblingsOf(`field of message ${fullName}`, () => nested.fieldsArray.map((f) => f.name));
        for (const field of nested.fieldsArray) {
          add(
            `${fullName}.${field.name}`,
            field,
            { on: 'field', message: fullName, field: field.name, number: field.id },
            fields,
          );
        }
        walk(nested);
      } else if (nested instanceof protobuf.Namespace) {
        walk(nested);
      }
    }
  };
  walk(parsed.root);
  return found;
}
