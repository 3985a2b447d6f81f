/**
 * The gRPC form of the deprecation policy (docs/decisions.md §7): the wrapper collects what a call
 * uses (packages/contract-registry/src/matching/grpc.ts: its rpc, the request fields it set, the reply fields its
 * answer carries) and applies what the core's policy decides:
 * - a refused rpc or request field fails the call with FAILED_PRECONDITION, an ErrorInfo whose reason is
 *   `BROWNOUT`, and `retry-after` (seconds to the window's end), before the handler runs;
 * - a withheld reply field is cleared, as its removal would;
 * - a caller's uses of deprecated items get the `deprecation`, `sunset`, `link` and `brownout` headers
 *   (or error metadata), as over REST.
 * Callers are counted by their issued API key when the call carries one in `x-api-key` (checked by
 * `apiKeyWrapper`, ./auth.ts; the internal token stays in `authorization`), else by client name
 * (`user-agent`) alone.
 */
import type { DescMethod, Message } from '@bufbuild/protobuf';
import { ConnectError, type HandlerContext } from '@connectrpc/connect';
import { brownoutHeader, type RegistryItem, signalOf } from '@order-api/contract-registry';
import type { GrpcMatcher } from '@order-api/contract-registry/matching';
import type { BrownoutWindow } from '../core/lifecycle/brownouts/brownouts.js';
import type { DeprecationDecision, DeprecationPolicy, UsageCaller } from '../core/lifecycle/deprecation-policy.js';
import { clientOf } from '../observability/metrics.js';
import { keyCaller } from './auth.js';
import { toConnectError } from './errors.js';
import type { CallWrapper, UnaryCall } from './service-wrappers.js';

/** What the wrapper needs. */
export interface DeprecationWrapperOptions {
  matcher: GrpcMatcher;
  policy: DeprecationPolicy;
}

const ASKED_NOTHING: ReadonlySet<string> = new Set();

/**
 * Counts, signals, refuses and trims the registry items calls use; both gRPC hosts apply it. A
 * server-streaming call is decided on its rpc and request (refused before its first message, signalled
 * in its response headers); the fields of its streamed messages are not trimmed.
 */
export function deprecationWrapper({ matcher, policy }: DeprecationWrapperOptions): CallWrapper {
  return (method, next) => {
    // Decided once per method: one that can neither send nor receive a registry item is not wrapped.
    const mayReceive = matcher.mayReceive(method);
    if (!mayReceive && !matcher.maySend(method)) return next;
    return wrapped(method, next, mayReceive);
  };

  function wrapped(method: DescMethod, next: UnaryCall, mayReceive: boolean): UnaryCall {
    return (request, context) => decided(method, next, mayReceive, request, context);
  }

  async function decided(
    method: DescMethod,
    next: UnaryCall,
    mayReceive: boolean,
    request: Message,
    context: HandlerContext,
  ): Promise<Message> {
    const sent = matcher.sent(method, request);
    if (sent.length === 0 && !mayReceive) return next(request, context);
    // The key `apiKeyWrapper` checked, when the call sent one.
    const apiKeyId = context.values.get(keyCaller)?.apiKeyId ?? 0;
    const caller = { apiKeyId, client: clientOf(context.requestHeader.get('user-agent')) };
    const before = policy.decide(caller, { sent, received: [], asked: ASKED_NOTHING });
    if (before.refusal) {
      const error = toConnectError(before.refusal.error);
      sign(error.metadata, before.signalled, policy.announced);
      error.metadata.set('retry-after', String(before.refusal.retryAfterSeconds));
      throw error;
    }
    // Set before the call so that a stream's first message carries them; a unary reply's are set again below.
    sign(context.responseHeader, before.signalled, policy.announced);
    let response: Message;
    try {
      response = await next(request, context);
    } catch (error) {
      if (error instanceof ConnectError) sign(error.metadata, before.signalled, policy.announced);
      throw error;
    }
    const after = replyDecision(policy, matcher, caller, method, response);
    if (after && after.withheld.length > 0) matcher.clear(method, response, after.withheld);
    sign(context.responseHeader, [...before.signalled, ...(after?.signalled ?? [])], policy.announced, after?.withheld);
    return response;
  }
}

/** The decision on what a reply carries, settled at once: the reply is delivered. */
function replyDecision(
  policy: DeprecationPolicy,
  matcher: GrpcMatcher,
  caller: UsageCaller,
  method: DescMethod,
  reply: Parameters<GrpcMatcher['received']>[1],
): DeprecationDecision | undefined {
  const received = matcher.received(method, reply);
  if (received.length === 0) return undefined;
  const decision = policy.decide(caller, { sent: [], received, asked: ASKED_NOTHING });
  policy.settle(decision, true);
  return decision;
}

/**
 * The deprecation headers of the items a caller uses, on a response's headers or an error's metadata; a
 * reply a brownout trimmed says so to every caller (`brownout`, its running window marked `withheld`).
 */
function sign(
  headers: Headers,
  items: readonly RegistryItem[],
  announced: (id: string) => BrownoutWindow[],
  withheld: readonly RegistryItem[] = [],
): void {
  const signal = signalOf([...items]);
  if (signal?.deprecation) headers.set('deprecation', signal.deprecation);
  if (signal?.sunset) headers.set('sunset', signal.sunset);
  if (signal) headers.set('link', signal.links.map((link) => `<${link}>; rel="deprecation"`).join(', '));
  const brownout = brownoutHeader([...new Set([...items, ...withheld])], announced, withheld);
  if (brownout && (signal || withheld.length > 0)) headers.set('brownout', brownout);
}
