import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema, type GraphQLSchema, getNamedType, isInterfaceType, isObjectType } from 'graphql';
import { graphqlRules } from '../rules/contract-rules.js';
import { compareRules } from './input-rules.js';
import type { Change } from './model.js';

const REMOVALS = new Set([
  'FIELD_REMOVED',
  'TYPE_REMOVED',
  'ENUM_VALUE_REMOVED',
  'INPUT_FIELD_REMOVED',
  'FIELD_ARGUMENT_REMOVED',
  'UNION_MEMBER_REMOVED',
  'OBJECT_TYPE_INTERFACE_REMOVED',
  'DIRECTIVE_REMOVED',
]);

/** Enum types a client can receive: the named type of some output field. */
function outputEnums(schema: GraphQLSchema): Set<string> {
  const names = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) names.add(getNamedType(field.type).name);
  }
  return names;
}

/**
 * Compares two SDL documents with @graphql-inspector. Its `Breaking` changes block; its `Dangerous` ones
 * (a new value in an output enum, a changed default, a new union member, a new argument) block until the
 * changelog entry names them. A new value in an enum used only as input is safe: no client receives it.
 */
export async function diffGraphql(baseSdl: string, headSdl: string): Promise<Change[]> {
  const base = buildSchema(baseSdl);
  const head = buildSchema(headSdl);
  // `@constraint` is compared as input rules (./input-rules.ts), not as graphql-inspector's directive usage.
  const changes = (await diff(base, head)).filter((change) => !String(change.path ?? '').includes('.@constraint'));
  const received = outputEnums(base);
  const findings: Change[] = changes.map((change) => {
    const level = change.criticality.level;
    const inputOnly = change.type === 'ENUM_VALUE_ADDED' && !received.has(String(change.path).split('.')[0] ?? '');
    const dangerous = level === CriticalityLevel.Dangerous && !inputOnly;
    const item = change.path ?? change.type;
    return {
      contract: 'graphql' as const,
      item,
      rule: change.type,
      message: `\`${item}\`: ${change.message}${dangerous ? ` (dangerous: ${change.criticality.reason ?? 'may change what clients see'})` : ''}`,
      breaking: level === CriticalityLevel.Breaking || dangerous,
      ...(dangerous ? { acknowledge: true } : {}),
      ...(REMOVALS.has(change.type) ? { removal: true } : {}),
    };
  });
  return [...findings, ...compareRules('graphql', graphqlRules(baseSdl), graphqlRules(headSdl))];
}
