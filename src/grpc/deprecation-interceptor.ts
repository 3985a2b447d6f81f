/**
 * The deprecation signals of gRPC: a call to a deprecated or watched rpc, or a request that sets a
 * deprecated or watched field, is counted per caller (client from `user-agent`); when a deprecated one
 * was used, the response headers (or the error's metadata) carry `deprecation` (`@<unix seconds>`),
 * `sunset` (an HTTP-date), `link` (the reference entry) and `brownout` (announced windows), as over REST.
 * During a running brownout window of a used item the call fails with FAILED_PRECONDITION, an ErrorInfo
 * whose reason is `BROWNOUT`, and `retry-after` (seconds to the window's end), before the handler runs.
 */
import type { DescMessage, Message } from '@bufbuild/protobuf';
import { isFieldSet } from '@bufbuild/protobuf';
import { ConnectError, type Interceptor } from '@connectrpc/connect';
import type { BrownoutService } from '../core/brownouts.js';
import { brownoutHeader, type DeprecationRegistry, type RegistryItem, signalOf } from '../core/deprecation-registry.js';
import type { UsageRecorder } from '../core/usage-recorder.js';
import { clientOf, type Metrics } from '../observability/metrics.js';
import { toConnectError } from './errors.js';

/** What the interceptor needs. */
export interface DeprecationInterceptorOptions {
  registry: DeprecationRegistry;
  metrics: Metrics;
  recorder?: UsageRecorder;
  /** The brownout windows (none when absent). */
  brownouts?: Pick<BrownoutService, 'refusal' | 'announced'>;
}

/** Counts and signals uses of registry items in unary requests. */
export function deprecationInterceptor({
  registry,
  metrics,
  recorder,
  brownouts,
}: DeprecationInterceptorOptions): Interceptor {
  const rpcs = new Map<string, RegistryItem>();
  const fields = new Map<string, Array<{ number: number; item: RegistryItem }>>();
  for (const item of registry.items) {
    const match = item.match;
    if (item.protocol !== 'grpc') continue;
    if (match.on === 'rpc' && 'method' in match) rpcs.set(`${match.service}.${match.method}`, item);
    if (match.on === 'field' && 'number' in match) {
      fields.set(match.message, [...(fields.get(match.message) ?? []), { number: match.number, item }]);
    }
  }
  return (next) => async (request) => {
    const used: RegistryItem[] = [];
    const rpc = rpcs.get(`${request.service.typeName}.${request.method.name}`);
    if (rpc) used.push(rpc);
    if (!request.stream) {
      for (const { number, item } of fields.get(request.method.input.typeName) ?? []) {
        if (isSent(request.method.input, request.message, number)) used.push(item);
      }
    }
    if (used.length === 0) return next(request);
    const client = clientOf(request.header.get('user-agent'));
    const refusal = brownouts?.refusal(used.map((item) => item.id));
    // A refused call counts only as a brownout hit of the items whose window runs; nothing else was used.
    const counted = refusal ? refusal.blocked : used;
    const kind = refusal ? 'brownout' : 'use';
    for (const item of counted) {
      metrics.deprecatedUsage.inc({ item: item.id, kind });
      recorder?.record({ item: item.id, apiKeyId: 0, client, kind });
    }
    const signal = signalOf(used);
    const brownout = brownouts ? brownoutHeader(used, brownouts.announced) : undefined;
    const sign = (headers: Headers) => {
      if (!signal) return;
      if (signal.deprecation) headers.set('deprecation', signal.deprecation);
      if (signal.sunset) headers.set('sunset', signal.sunset);
      headers.set('link', signal.links.map((link) => `<${link}>; rel="deprecation"`).join(', '));
      if (brownout) headers.set('brownout', brownout);
    };
    if (refusal) {
      const error = toConnectError(refusal.error);
      sign(error.metadata);
      error.metadata.set('retry-after', String(refusal.retryAfterSeconds));
      throw error;
    }
    try {
      const response = await next(request);
      sign(response.header);
      return response;
    } catch (error) {
      if (error instanceof ConnectError) sign(error.metadata);
      throw error;
    }
  };
}

/** Whether the request set field `number`: a known field with a value, or an unknown one on the wire. */
function isSent(schema: DescMessage, message: Message, number: number): boolean {
  const field = schema.fields.find((candidate) => candidate.number === number);
  if (field) return isFieldSet(message, field);
  const unknown = (message as { $unknown?: Array<{ no: number }> }).$unknown;
  return unknown?.some((entry) => entry.no === number) ?? false;
}
