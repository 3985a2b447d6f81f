/**
 * The project's OpenAPI breaking-change rules, over two parsed documents. For every operation and every
 * documented status (errors included) it compares what a client depends on: the operation itself, its
 * parameters (schema, required, style, explode, default), request bodies and their media types, response
 * statuses, headers, media types and bodies, and security requirements. Adding is never breaking;
 * removing, renaming, retyping, narrowing what is accepted and loosening what is promised are.
 */

import type { Change } from './model.js';
import { compareSchemas, type Json, type Resolve, resolver, type SchemaContext } from './openapi-schema.js';
import { compareSchemes, compareSecurity } from './openapi-security.js';

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];
const DEFAULT_STYLE: Record<string, string> = { query: 'form', cookie: 'form', path: 'simple', header: 'simple' };

function parametersOf(operation: Json, pathItem: Json, resolve: Resolve): Map<string, Json> {
  const parameters = new Map<string, Json>();
  for (const raw of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
    const parameter = resolve(raw);
    const name = parameter.in === 'header' ? String(parameter.name).toLowerCase() : parameter.name;
    parameters.set(`${parameter.in}:${name}`, parameter);
  }
  return parameters;
}

/** How a parameter is serialized, with the defaults of the OpenAPI specification filled in. */
function serialization(parameter: Json): { style: string; explode: boolean } {
  const style = parameter.style ?? DEFAULT_STYLE[parameter.in] ?? 'simple';
  return { style, explode: parameter.explode ?? style === 'form' };
}

const isSuccess = (status: string) => /^2/.test(status);
const headerKey = (name: string) => name.toLowerCase();

/** The comparison of one operation present on both sides. */
class OperationDiff {
  constructor(
    private readonly op: string,
    private readonly context: SchemaContext,
  ) {}

  private push(item: string, rule: string, message: string, extra: Partial<Change> = {}) {
    this.context.out.push({
      contract: 'openapi',
      item,
      rule,
      message: `${this.op}: ${message}`,
      breaking: true,
      ...extra,
    });
  }

  parameters(before: Map<string, Json>, after: Map<string, Json>) {
    for (const [key, parameter] of before) {
      const next = after.get(key);
      const label = `${parameter.in} parameter "${parameter.name}"`;
      const item = `${this.op} ${parameter.in}:${parameter.name}`;
      if (!next) {
        this.push(item, 'parameter-removed', `${label} removed or renamed`, { removal: true });
        continue;
      }
      if (!parameter.required && next.required) this.push(item, 'parameter-required', `${label} is now required`);
      const [b, h] = [serialization(parameter), serialization(next)];
      if (b.style !== h.style || b.explode !== h.explode)
        this.push(
          item,
          'parameter-style-changed',
          `${label} is serialized differently (style ${b.style}→${h.style}, explode ${b.explode}→${h.explode})`,
        );
      compareSchemas(parameter.schema, next.schema, 'request', item, this.op, this.context);
    }
    for (const [key, parameter] of after) {
      if (before.has(key)) continue;
      const item = `${this.op} ${parameter.in}:${parameter.name}`;
      if (parameter.required)
        this.push(item, 'parameter-added-required', `new required ${parameter.in} parameter "${parameter.name}"`);
      else
        this.push(item, 'parameter-added', `new optional ${parameter.in} parameter "${parameter.name}"`, {
          breaking: false,
        });
    }
  }

  requestBody(before: Json | undefined, after: Json | undefined) {
    const item = `${this.op} request body`;
    if (!before) {
      if (after?.required) this.push(item, 'request-body-required', 'a request body is now required');
      return;
    }
    if (!after) return this.push(item, 'request-body-removed', 'request body no longer accepted', { removal: true });
    if (!before.required && after.required)
      this.push(item, 'request-body-required', 'the request body is now required');
    for (const [type, media] of Object.entries<Json>(before.content ?? {})) {
      const next = after.content?.[type];
      if (!next)
        this.push(`${item} ${type}`, 'request-media-type-removed', `request media type ${type} no longer accepted`, {
          removal: true,
        });
      else compareSchemas(media.schema, next.schema, 'request', item, this.op, this.context);
    }
  }

  responses(before: Json, after: Json) {
    const resolve = { base: this.context.base, head: this.context.head };
    const headStatuses = Object.keys(after);
    for (const [status, raw] of Object.entries(before)) {
      const item = `${this.op} ${status}`;
      if (!(status in after)) {
        if (!isSuccess(status)) {
          this.push(item, 'error-response-undocumented', `response ${status} is no longer documented`, {
            breaking: false,
          });
          continue;
        }
        const others = headStatuses.filter((other) => isSuccess(other) && !(other in before));
        if (others.length > 0)
          this.push(item, 'success-status-changed', `success status ${status} changed to ${others.join(', ')}`);
        else this.push(item, 'success-status-removed', `success response ${status} removed`, { removal: true });
        continue;
      }
      this.response(item, status, resolve.base(raw) ?? {}, resolve.head(after[status]) ?? {});
    }
    const beforeSuccess = Object.keys(before).filter(isSuccess);
    for (const status of headStatuses) {
      if (status in before) continue;
      const item = `${this.op} ${status}`;
      if (isSuccess(status) && beforeSuccess.length > 0 && beforeSuccess.every((old) => old in after))
        this.push(
          item,
          'success-status-added',
          `new success status ${status}: clients that expect ${beforeSuccess.join(', ')} meet another`,
        );
      else if (!isSuccess(status))
        this.push(item, 'response-added', `response ${status} documented`, { breaking: false });
    }
  }

  private response(item: string, status: string, before: Json, after: Json) {
    const afterHeaders = new Map(
      Object.entries<Json>(after.headers ?? {}).map(([name, header]) => [headerKey(name), header]),
    );
    for (const [name, raw] of Object.entries<Json>(before.headers ?? {})) {
      const header = this.context.base(raw) ?? {};
      const nextRaw = afterHeaders.get(headerKey(name));
      const headerItem = `${item} header ${name}`;
      if (!nextRaw) {
        this.push(headerItem, 'response-header-removed', `response header ${name} of ${status} removed or renamed`, {
          removal: true,
        });
        continue;
      }
      const next = this.context.head(nextRaw) ?? {};
      if (header.required && !next.required)
        this.push(
          headerItem,
          'response-header-optional',
          `response header ${name} of ${status} is no longer always sent`,
        );
      compareSchemas(header.schema, next.schema, 'response', headerItem, item, this.context);
    }
    for (const [type, media] of Object.entries<Json>(before.content ?? {})) {
      const next = after.content?.[type];
      if (!next)
        this.push(
          `${item} ${type}`,
          'response-media-type-removed',
          `response ${status} is no longer offered as ${type}`,
          { removal: true },
        );
      else compareSchemas(media.schema, next.schema, 'response', `${item} response`, item, this.context);
    }
  }
}

/** Lists the changes between two OpenAPI documents; `breaking` marks what blocks a release. */
export function diffOpenApi(base: Json, head: Json): Change[] {
  const context: SchemaContext = { base: resolver(base), head: resolver(head), out: [], done: new Set() };
  const out = context.out;
  for (const [path, rawItem] of Object.entries<Json>(base.paths ?? {})) {
    const baseItem: Json = context.base(rawItem) ?? {};
    const headItem: Json = context.head(head.paths?.[path]) ?? {};
    for (const method of METHODS) {
      const before = baseItem[method] as Json | undefined;
      if (!before) continue;
      const op = `${method.toUpperCase()} ${path}`;
      const after = headItem[method] as Json | undefined;
      if (!after) {
        out.push({
          contract: 'openapi',
          item: op,
          rule: 'operation-removed',
          message: `${op}: operation removed (or its URL or method changed)`,
          breaking: true,
          removal: true,
        });
        continue;
      }
      const diff = new OperationDiff(op, context);
      diff.parameters(parametersOf(before, baseItem, context.base), parametersOf(after, headItem, context.head));
      diff.requestBody(context.base(before.requestBody), context.head(after.requestBody));
      diff.responses(before.responses ?? {}, after.responses ?? {});
      compareSecurity(op, before, after, { base, head }, out);
    }
  }
  for (const [path, rawItem] of Object.entries<Json>(head.paths ?? {})) {
    const headItem: Json = context.head(rawItem) ?? {};
    const baseItem: Json = context.base(base.paths?.[path]) ?? {};
    for (const method of METHODS) {
      if (headItem[method] && !baseItem[method]) {
        const op = `${method.toUpperCase()} ${path}`;
        out.push({
          contract: 'openapi',
          item: op,
          rule: 'operation-added',
          message: `${op}: operation added`,
          breaking: false,
        });
      }
    }
  }
  diffWebhooks(base, head, context);
  compareSchemes(base, head, out);
  return out;
}

/**
 * The `webhooks` section: a payload is what the server sends, so it is compared like a response body (a
 * member no longer promised is breaking, a new one is not); a removed webhook is breaking, an added one not.
 */
function diffWebhooks(base: Json, head: Json, context: SchemaContext): void {
  const names = new Set([...Object.keys(base.webhooks ?? {}), ...Object.keys(head.webhooks ?? {})]);
  for (const name of names) {
    const before: Json = context.base(base.webhooks?.[name]) ?? {};
    const after: Json = context.head(head.webhooks?.[name]) ?? {};
    for (const method of METHODS) {
      const op = `webhook ${name} ${method.toUpperCase()}`;
      if (!before[method] && !after[method]) continue;
      if (!after[method] || !before[method]) {
        const removed = !after[method];
        context.out.push({
          contract: 'openapi',
          item: op,
          rule: removed ? 'webhook-removed' : 'webhook-added',
          message: `${op}: webhook ${removed ? 'removed (or renamed)' : 'added'}`,
          breaking: removed,
          ...(removed ? { removal: true } : {}),
        });
        continue;
      }
      const bodyBefore: Json = context.base(before[method].requestBody) ?? {};
      const bodyAfter: Json = context.head(after[method].requestBody) ?? {};
      for (const [type, media] of Object.entries<Json>(bodyBefore.content ?? {})) {
        const next = bodyAfter.content?.[type];
        if (!next)
          context.out.push({
            contract: 'openapi',
            item: `${op} ${type}`,
            rule: 'webhook-media-type-removed',
            message: `${op}: payload no longer sent as ${type}`,
            breaking: true,
            removal: true,
          });
        else compareSchemas(media.schema, next.schema, 'response', `${op} payload`, op, context);
      }
    }
  }
}
