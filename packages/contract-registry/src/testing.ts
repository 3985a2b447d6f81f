/** A registry item for the core's unit tests: deprecated 2026-11-01, sunset 2027-06-30, unless told otherwise. */
import type { RegistryItem } from './registry.js';

export const registryItem = (id: string, fields: Partial<RegistryItem> = {}): RegistryItem => ({
  id,
  protocol: 'rest',
  status: 'deprecated',
  name: id,
  deprecated: '2026-11-01',
  sunset: '2027-06-30',
  reason: null,
  replacement: null,
  link: `/docs/deprecations#${id}`,
  match: { on: 'operation', operationId: id },
  ...fields,
});
