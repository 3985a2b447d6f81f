import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';
import type { Change } from './report.js';

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

/** Compares two SDL documents with @graphql-inspector; breaking is its `Breaking` criticality. */
export async function diffGraphql(baseSdl: string, headSdl: string): Promise<Change[]> {
  const changes = await diff(buildSchema(baseSdl), buildSchema(headSdl));
  return changes.map((change) => ({
    contract: 'graphql' as const,
    item: change.path ?? change.type,
    message: change.message,
    breaking: change.criticality.level === CriticalityLevel.Breaking,
    ...(REMOVALS.has(change.type) ? { removal: true } : {}),
  }));
}
