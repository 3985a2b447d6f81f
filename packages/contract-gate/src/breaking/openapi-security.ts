/** Security rules of the OpenAPI gate: an authentication change is a version cut, never a silent edit. */
import { isDeepStrictEqual } from 'node:util';
import type { Change } from './model.js';
import type { Json } from './openapi-schema.js';

/** Requirement sets of an operation, each as a canonical string (`{}` = anonymous access allowed). */
function securityOf(operation: Json, document: Json): string[] {
  const requirements: Json[] = operation.security ?? document.security ?? [];
  return requirements.map((requirement) =>
    Object.entries(requirement)
      .map(([name, scopes]) => `${name}[${[...((scopes as string[]) ?? [])].sort().join(',')}]`)
      .sort()
      .join('+'),
  );
}

/** An operation must stay callable with every credential it accepted (or with none, if it was open). */
export function compareSecurity(
  op: string,
  before: Json,
  after: Json,
  docs: { base: Json; head: Json },
  out: Change[],
): void {
  const [b, h] = [securityOf(before, docs.base), securityOf(after, docs.head)];
  const anonymous = (requirements: string[]) => requirements.length === 0 || requirements.includes('');
  if (anonymous(h)) return; // anyone may still call it
  const lost = anonymous(b) ? ['none'] : b.filter((requirement) => !h.includes(requirement));
  if (lost.length > 0)
    out.push({
      contract: 'openapi',
      item: `${op} security`,
      rule: 'security-requirement-changed',
      message: `${op}: security requirement changed from ${b.join(' or ') || 'none'} to ${h.join(' or ') || 'none'}`,
      breaking: true,
    });
}

/** Security schemes in use must keep their definition: a changed scheme is an authentication change. */
export function compareSchemes(base: Json, head: Json, out: Change[]) {
  for (const [name, scheme] of Object.entries<Json>(base.components?.securitySchemes ?? {})) {
    const next = head.components?.securitySchemes?.[name];
    const strip = (value: Json | undefined) => value && { ...value, description: undefined };
    if (!isDeepStrictEqual(strip(scheme), strip(next)))
      out.push({
        contract: 'openapi',
        item: `securitySchemes.${name}`,
        rule: 'security-scheme-changed',
        message: `security scheme ${name} ${next ? 'changed' : 'removed'}`,
        breaking: true,
      });
  }
}
