/**
 * Builds the deprecation registry from the three contracts and reports what is wrong with their
 * deprecations: a deprecated item without a sunset date, a date that is not a real date, a watched id
 * that names nothing. `npm run generate` writes the registry; `npm run contracts:lint` fails on problems.
 *
 * Notations (documented in each contract):
 *   OpenAPI   `deprecated: true` + `x-deprecated-on: YYYY-MM-DD` + `x-sunset: YYYY-MM-DD`
 *   GraphQL   `@deprecated(reason: "… Deprecated: YYYY-MM-DD. Sunset: YYYY-MM-DD.")`
 *   proto     `[deprecated = true]` / `option deprecated = true;` + the same two dates in its comment
 *   watched   contracts/watched.yaml, by item id
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, type GraphQLSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import protobuf from 'protobufjs';
import { parse as parseYaml } from 'yaml';
import {
  type DeprecationRegistry,
  ITEM_ID,
  isRealDate,
  type RegistryItem,
  referenceLink,
} from '../../src/core/deprecation-registry.js';

type Candidate = Omit<RegistryItem, 'status' | 'deprecated' | 'sunset' | 'replacement' | 'link'> & {
  deprecated: boolean;
  /** The raw dates as written, if any. */
  date: unknown;
  since: unknown;
  where: string;
};

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
const SUNSET_IN_TEXT = /sunset:\s*(\S+?)[.,;)]?(?:\s|$)/i;
const DEPRECATED_IN_TEXT = /deprecated:\s*(\S+?)[.,;)]?(?:\s|$)/i;

/** The registry of `contractsDir` and the problems found on the way. */
export function buildRegistry(contractsDir: string): { registry: DeprecationRegistry; problems: string[] } {
  const candidates = [
    ...openapiCandidates(parseYaml(readFileSync(path.join(contractsDir, 'openapi.yaml'), 'utf8'))),
    ...graphqlCandidates(buildSchema(readFileSync(path.join(contractsDir, 'schema.graphql'), 'utf8'))),
    ...protoCandidates(readFileSync(path.join(contractsDir, 'inventory/v1/inventory.proto'), 'utf8')),
  ];
  const problems: string[] = [];
  const byId = new Map<string, Candidate>();
  for (const candidate of candidates) byId.set(candidate.id, candidate);
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
    items.push(itemOf(candidate, 'deprecated', real(since), real(date), null));
  }
  const watchedFile = path.join(contractsDir, 'watched.yaml');
  const watched = existsSync(watchedFile)
    ? ((parseYaml(readFileSync(watchedFile, 'utf8')) as { watched?: unknown[] } | null)?.watched ?? [])
    : [];
  for (const [index, entry] of watched.entries()) {
    const { item, replacement, reason } = (entry ?? {}) as Record<string, unknown>;
    const candidate = typeof item === 'string' ? byId.get(item) : undefined;
    if (!candidate || typeof item !== 'string' || !ITEM_ID.test(item)) {
      problems.push(`watched.yaml #${index + 1}: "${String(item)}" names no item of the contracts`);
      continue;
    }
    if (candidate.deprecated) continue;
    items.push(
      itemOf(
        { ...candidate, reason: typeof reason === 'string' ? reason : null },
        'watched',
        null,
        null,
        typeof replacement === 'string' ? replacement : null,
      ),
    );
  }
  items.sort((a, b) => a.id.localeCompare(b.id));
  return { registry: { items }, problems };
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
  const rest = (id: string, name: string, node: Json, match: RegistryItem['match'], where: string): Candidate => ({
    id: `rest.${id}`,
    protocol: 'rest',
    name,
    reason: typeof node.description === 'string' ? node.description.trim() : null,
    match,
    deprecated: node.deprecated === true,
    date: node['x-sunset'],
    since: node['x-deprecated-on'],
    where: `openapi.yaml ${where}`,
  });
  const properties = (schema: Json, prefix: string[], visit: (path: string[], node: Json) => void) => {
    for (const [name, raw] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      visit([...prefix, name], raw);
      if (!raw.$ref && prefix.length < 4) properties(raw, [...prefix, name], visit);
    }
  };
  for (const [template, pathItem] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = pathItem[method] as Json | undefined;
      const operationId = operation?.operationId;
      if (!operation || typeof operationId !== 'string') continue;
      const label = `${method.toUpperCase()} ${template}`;
      found.push(rest(operationId, label, operation, { on: 'operation', operationId }, label));
      const parameters = [...((pathItem.parameters ?? []) as Json[]), ...((operation.parameters ?? []) as Json[])];
      for (const parameter of parameters.map(resolve)) {
        const { in: where, name } = parameter as { in: string; name: string };
        found.push(
          rest(
            `${operationId}.${where}.${name}`,
            `${label} ${where} ${name}`,
            parameter,
            { on: 'parameter', operationId, in: where, name },
            `${label} parameter ${name}`,
          ),
        );
      }
      const body = ((operation.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
      for (const media of Object.values(body)) {
        const schema = (media.schema ?? {}) as Json;
        if (schema.$ref) continue;
        properties(schema, [], (memberPath, node) =>
          found.push(
            rest(
              `${operationId}.body.${memberPath.join('.')}`,
              `${label} body ${memberPath.join('.')}`,
              node,
              { on: 'body', operationId, path: memberPath },
              `${label} body member ${memberPath.join('.')}`,
            ),
          ),
        );
      }
    }
  }
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  for (const [schemaName, schema] of Object.entries(schemas)) {
    properties(schema, [], (propertyPath, node) =>
      found.push(
        rest(
          `${schemaName}.${propertyPath.join('.')}`,
          `${schemaName}.${propertyPath.join('.')}`,
          node,
          { on: 'property', schema: schemaName, path: propertyPath },
          `schema ${schemaName} property ${propertyPath.join('.')}`,
        ),
      ),
    );
  }
  return found;
}

function graphqlCandidates(schema: GraphQLSchema): Candidate[] {
  const found: Candidate[] = [];
  const add = (id: string, reason: string | null | undefined, match: RegistryItem['match']) =>
    found.push({
      id: `graphql.${id}`,
      protocol: 'graphql',
      name: id,
      reason: reason ?? null,
      match,
      deprecated: reason != null,
      date: reason ? SUNSET_IN_TEXT.exec(reason)?.[1] : undefined,
      since: reason ? DEPRECATED_IN_TEXT.exec(reason)?.[1] : undefined,
      where: `schema.graphql ${id}`,
    });
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        add(`${type.name}.${field.name}`, field.deprecationReason, { on: 'field', type: type.name, field: field.name });
        for (const argument of field.args) {
          add(`${type.name}.${field.name}.${argument.name}`, argument.deprecationReason, {
            on: 'argument',
            type: type.name,
            field: field.name,
            argument: argument.name,
          });
        }
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        add(`${type.name}.${field.name}`, field.deprecationReason, {
          on: 'input-field',
          type: type.name,
          field: field.name,
        });
      }
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) {
        add(`${type.name}.${value.name}`, value.deprecationReason, {
          on: 'enum-value',
          type: type.name,
          value: value.name,
        });
      }
    }
  }
  return found;
}

function protoCandidates(source: string): Candidate[] {
  const found: Candidate[] = [];
  const parsed = protobuf.parse(source, { alternateCommentMode: true, keepCase: true });
  const add = (name: string, object: protobuf.ReflectionObject, match: RegistryItem['match']) => {
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
      where: `${parsed.package ?? ''} proto ${name}`,
    });
  };
  const walk = (namespace: protobuf.NamespaceBase) => {
    for (const nested of namespace.nestedArray) {
      const fullName = nested.fullName.replace(/^\./, '');
      if (nested instanceof protobuf.Service) {
        for (const method of nested.methodsArray) {
          add(`${fullName}.${method.name}`, method, { on: 'rpc', service: fullName, method: method.name });
        }
      } else if (nested instanceof protobuf.Type) {
        for (const field of nested.fieldsArray) {
          add(`${fullName}.${field.name}`, field, {
            on: 'field',
            message: fullName,
            field: field.name,
            number: field.id,
          });
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
