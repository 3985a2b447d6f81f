/**
 * What a REST request is made of, as names (docs/decisions.md §13): its operation, the query and header
 * parameters and body members it sent, the enum values and sort keys among them, and the members its answer
 * was asked to hold. Never a number, text, id or date. Each name is written as the release gate names the
 * item a change would touch (packages/contract-gate/src/breaking/openapi-diff.ts), so impact analysis matches them as they are:
 *   `GET /v1/orders`                            the operation
 *   `GET /v1/orders query:minAmount`            a parameter sent
 *   `GET /v1/orders query:status[]=PAID`        an enum value sent (`OrderStatus=PAID` under a named schema)
 *   `GET /v1/orders query:sort=amount`          a sort key
 *   `POST /v1/orders request body`              a body sent
 *   `PlaceOrderRequest.items`, `OrderLine.sku`  a body member, under the schema that declares it
 *   `GET /v1/orders answer:*`, `… fields:status` a full answer, or the members `fields=` kept
 *   `webhook order.created POST`, `Order.note`  a webhook delivery, and the payload members it carried
 * Read from the contract as written, once per operation.
 */

import { atPointer } from '@order-api/contract-registry/matching';
import type { ChainStep } from '../http/chain.js';
import type { RestEnv } from './pipeline.js';

// biome-ignore lint/suspicious/noExplicitAny: the contract as written is parsed YAML
type Json = Record<string, any>;

/** What a step records with. */
export type RecordShapes = (caller: { apiKeyId: number; client: string }, shapes: readonly string[]) => void;

/** The names of one operation's request parts, read from the contract. */
interface OperationShape {
  op: string;
  /** `<op> answer:*`, and each header's and query parameter's name, written once. */
  fullAnswer: string;
  /** Query parameters by name: the schema that names their values, its name, whether it is a list. */
  query: Map<string, { schema: Json | undefined; item: string; list: boolean }>;
  /** Declared header parameters: the name as sent (lower case) and the shape. */
  headers: Array<{ sent: string; item: string }>;
  body: Json | undefined;
}

/** The shape names of requests to a contract. */
export interface RestShapes {
  of(
    operationId: string,
    request: {
      query: Record<string, string>;
      header(name: string): string | undefined;
      body: unknown;
      fields: ReadonlySet<string> | undefined;
    },
  ): string[];
  /** A webhook delivery's names: its event type's webhook and the payload members it carries. */
  ofDelivery(eventType: string, payload: unknown): string[];
}

const MAX_DEPTH = 12;

/** Follows `$ref`s: the schema, and the name of the last component it named. */
type Resolve = (node: Json | undefined) => { node: Json | undefined; name?: string };

/** Reads each operation's parameters and body schema from the contract as written. */
export function restShapes(definition: Record<string, unknown>): RestShapes {
  const document = definition as Json;
  const resolve = resolverOf(document);
  const operations = new Map<string, OperationShape>();
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!operation?.operationId) continue;
      const op = `${method.toUpperCase()} ${path}`;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(
        (parameter: Json) => resolve(parameter).node as Json,
      );
      const query = new Map(
        parameters
          .filter((p) => p.in === 'query')
          .map((p) => [
            p.name as string,
            { schema: p.schema, item: `${op} query:${p.name}`, list: resolve(p.schema).node?.type === 'array' },
          ]),
      );
      const headers = parameters
        .filter((p) => p.in === 'header')
        .map((p) => ({ sent: (p.name as string).toLowerCase(), item: `${op} header:${p.name}` }));
      const body = resolve(operation.requestBody).node?.content?.['application/json']?.schema;
      operations.set(operation.operationId, { op, fullAnswer: `${op} answer:*`, query, headers, body });
    }
  }

  // Webhooks: each event type's delivery, named as the gate names it (`webhook order.created POST`).
  const webhooks = new Map<string, { op: string; body: Json | undefined }>();
  for (const [name, item] of Object.entries<Json>(document.webhooks ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      const body = resolve(operation?.requestBody).node?.content?.['application/json']?.schema;
      webhooks.set(name, { op: `webhook ${name} ${method.toUpperCase()}`, body });
    }
  }

  const walk = valueWalker(resolve);
  return {
    ofDelivery(eventType, payload) {
      const webhook = webhooks.get(eventType);
      if (!webhook) return [];
      const out = [webhook.op];
      if (webhook.body) walk(webhook.body, payload, `${webhook.op} request body`, out, 0);
      return out;
    },
    of(operationId, { query, header, body, fields }) {
      const shape = operations.get(operationId);
      if (!shape) return [];
      const { op } = shape;
      const out = fields ? [op] : [op, shape.fullAnswer];
      if (fields) for (const member of fields) out.push(`${op} fields:${member}`);
      for (const name in query) {
        const parameter = shape.query.get(name);
        if (!parameter) continue;
        const { item } = parameter;
        const value = query[name] as string;
        out.push(item);
        if (name === 'sort') {
          for (const key of value.split(',')) out.push(`${item}=${key.replace(/^-/, '')}`);
          continue;
        }
        walk(parameter.schema, parameter.list ? value.split(',') : value, item, out, 0);
      }
      for (const { sent, item } of shape.headers) if (header(sent) !== undefined) out.push(item);
      if (shape.body && body !== undefined) {
        out.push(`${op} request body`);
        walk(shape.body, body, `${op} request body`, out, 0);
      }
      return out;
    },
  };
}

/** Follows `$ref`s of the document, remembering the last component named. */
function resolverOf(document: Json): Resolve {
  return (node) => {
    let current = node;
    let name: string | undefined;
    for (let hops = 0; current && typeof current.$ref === 'string' && hops < 10; hops++) {
      const ref = current.$ref as string;
      name = ref.split('/').pop();
      current = atPointer(document, ref);
    }
    return name ? { node: current, name } : { node: current };
  };
}

/** The enum values and members a value sends, named as the gate names the schema that declares them. */
function valueWalker(resolve: Resolve) {
  const walk = (schema: Json | undefined, value: unknown, name: string, out: string[], depth: number) => {
    if (!schema || depth > MAX_DEPTH || value === null || value === undefined) return;
    const resolved = resolve(schema);
    const node = resolved.node ?? {};
    const here = resolved.name ?? name;
    // A member of a composed schema (`allOf: [$ref: Order, …]`) is named under the schema that declares it
    // and under the composed one, as the gate may name either.
    const named = [node, ...(node.allOf ?? []), ...(node.oneOf ?? []), ...(node.anyOf ?? [])].map((part: Json) => {
      const found = resolve(part);
      return { part: found.node ?? {}, owner: part === node ? here : (found.name ?? here) };
    });
    const parts = named.map(({ part }) => part);
    const values = parts.flatMap((part) => part.enum ?? []);
    if (typeof value === 'string' && values.length > 0) {
      const canonical = values.find((known) => String(known).toLowerCase() === value.toLowerCase());
      if (canonical !== undefined) out.push(`${here}=${canonical}`);
      return;
    }
    if (Array.isArray(value)) {
      const items = parts.find((part) => part.items)?.items;
      for (const entry of value) walk(items, entry, `${here}[]`, out, depth + 1);
      return;
    }
    if (typeof value !== 'object') return;
    for (const [member, memberValue] of Object.entries(value as Json)) {
      const declared = parts.find((part) => part.properties?.[member])?.properties?.[member];
      const extra = parts.find((part) => part.additionalProperties && typeof part.additionalProperties === 'object');
      if (declared) {
        const owner = named.find(({ part }) => part.properties?.[member])?.owner ?? here;
        out.push(`${here}.${member}`);
        if (owner !== here) out.push(`${owner}.${member}`);
        walk(declared, memberValue, `${here}.${member}`, out, depth + 1);
      } else if (extra) walk(extra.additionalProperties, memberValue, `${here}{}`, out, depth + 1);
    }
  };
  return walk;
}

/** Records the shape of every request that passed validation; the caller is its key, else its client. */
export function recordRequestShapes(
  shapes: RestShapes,
  record: RecordShapes,
  clientOf: (userAgent: string | undefined) => string,
): ChainStep<RestEnv> {
  return function recordShape(c, next) {
    const body = c.get('body');
    const names = shapes.of(c.get('operation').operationId, {
      query: c.get('query'),
      header: (name) => c.req.header(name),
      body,
      fields: c.get('fields'),
    });
    record({ apiKeyId: c.get('restCaller')?.apiKeyId ?? 0, client: clientOf(c.req.header('user-agent')) }, names);
    return next();
  };
}
