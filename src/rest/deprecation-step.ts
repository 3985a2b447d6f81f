/**
 * The REST form of the deprecation policy (docs/decisions.md §7): the step collects what a request uses
 * (packages/contract-registry/src/matching/rest.ts) and applies what the core's policy decides, in HTTP terms:
 * - a refused operation is `410 BROWNOUT`; a refused parameter or body member is `400 BROWNOUT` naming
 *   it, as the request would be once the member is gone; nothing runs;
 * - a withheld response property is left out of the 2xx answer, as its removal would, status unchanged;
 * - the caller's uses of deprecated items get `Deprecation` (RFC 9745), `Sunset` (RFC 8594),
 *   `Link: <…>; rel="deprecation"` and `Brownout` (the windows announced; a withheld item's running
 *   window is marked `withheld`); a caller with a key also gets `Link: </v1/api-keys/<id>/deprecations>;
 *   rel="related"`, its own usage, and a refusal names that path in the problem's `deprecatedUsage`.
 */

import { brownoutHeader, type RegistryItem, type RestMatch, signalOf } from '@order-api/contract-registry';
import type { ResponseItem, RestMatcher } from '@order-api/contract-registry/matching';
import type { Context, Next } from 'hono';
import type { BrownoutWindow } from '../core/lifecycle/brownouts/brownouts.js';
import { deprecatedUsagePath } from '../core/lifecycle/deprecated-usage.js';
import type { DeprecationDecision, DeprecationPolicy, ReceivedItem } from '../core/lifecycle/deprecation-policy.js';
import type { Violation } from '../core/shared/errors.js';
import type { ChainStep } from '../http/chain.js';
import { BROWNOUT_OF_INPUT_STATUS } from '../http/http-status.js';
import { catalogProblem } from '../http/problem.js';
import { clientOf } from '../observability/metrics.js';
import type { RestEnv } from './pipeline.js';
import { includes } from './validated-request.js';

/** What the step needs. */
export interface DeprecationStepOptions {
  matcher: RestMatcher;
  policy: DeprecationPolicy;
}

/** Counts and signals the registry items a request uses; refuses or trims it during a brownout window. */
export function deprecationSignals({ matcher, policy }: DeprecationStepOptions): ChainStep<RestEnv> {
  return function signalDeprecations(c, next) {
    const { operationId, version } = c.get('operation');
    const query = c.get('query');
    const body = c.get('body');
    const sent = matcher.sent(operationId, { query, header: (name) => c.req.header(name), body, version });
    const answerItems = matcher.received(operationId);
    const moved = matcher.replacedBy(version);
    if (sent.length === 0 && answerItems.length === 0 && moved.length === 0) return next();
    return applyPolicy(c, next, { matcher, policy }, sent, answerItems, moved);
  };
}

async function applyPolicy(
  c: Context<RestEnv>,
  next: Next,
  { matcher, policy }: DeprecationStepOptions,
  sent: RegistryItem[],
  answerItems: readonly ResponseItem[],
  moved: readonly RegistryItem[],
): Promise<Response | undefined> {
  const fields = c.get('fields');
  const body = c.get('body') as { include?: string[] } | undefined;
  // A request under a version that replaces a deprecated one asks for that replacement (a replacement use).
  const version = c.get('operation').version;
  const asked = new Set([...includes(c.get('query').include ?? body?.include), ...(fields ?? []), version]);
  const received: ReceivedItem[] = moved.map((item) => ({ item, carried: false, named: false }));
  received.push(
    ...answerItems.map(({ item, member }) => ({
      item,
      carried: !fields || fields.has(member),
      named: fields?.has(member) ?? false,
    })),
  );
  const caller = { apiKeyId: c.get('restCaller')?.apiKeyId ?? 0, client: clientOf(c.req.header('user-agent')) };
  const usage = deprecatedUsagePath(caller.apiKeyId, c.get('operation').base);
  const decision = policy.decide(caller, { sent, received, asked });
  if (decision.refusal) {
    policy.settle(decision, false);
    const sentPath = (item: RegistryItem) => matcher.bodyPath(c.get('operation').operationId, item);
    return refusalResponse(c, decision, policy.announced, sentPath, usage);
  }
  if (decision.withheld.length > 0) c.set('trimmed', true);
  await next();
  const { signalled, withheld } = policy.settle(decision, c.res.status >= 200 && c.res.status < 300);
  if (withheld.length > 0) {
    c.res = await withhold(
      c.res,
      answerItems.filter((entry) => withheld.includes(entry.item)),
    );
  }
  for (const [name, value] of Object.entries(signalHeaders(signalled, policy.announced, withheld, usage))) {
    c.res.headers.set(name, value);
  }
}

/**
 * `410 BROWNOUT` for a refused operation, `400 BROWNOUT` naming a refused parameter or body member; a caller
 * with a key is pointed at its own usage (`deprecatedUsage`), to see what else it still uses.
 */
function refusalResponse(
  c: Context<RestEnv>,
  decision: DeprecationDecision,
  announced: (id: string) => BrownoutWindow[],
  sentPath: (item: RegistryItem) => readonly string[] | undefined,
  usage: string | undefined,
): Response {
  const { error, retryAfterSeconds, scope } = decision.refusal as NonNullable<DeprecationDecision['refusal']>;
  const headers = {
    ...signalHeaders(decision.signalled, announced, [], usage),
    'Retry-After': String(retryAfterSeconds),
  };
  const members = usage ? { deprecatedUsage: usage } : undefined;
  if (scope === 'operation') {
    return catalogProblem(c, 'BROWNOUT', error.detail, undefined, headers, undefined, members);
  }
  const violations = decision.refused.map((item) => violationOf(item, sentPath));
  return catalogProblem(c, 'BROWNOUT', error.detail, violations, headers, BROWNOUT_OF_INPUT_STATUS, members);
}

/** Where a refused parameter or body member sits in the request (a body member by its JSON pointer). */
function violationOf(item: RegistryItem, sentPath: (item: RegistryItem) => readonly string[] | undefined): Violation {
  const match = item.match as RestMatch;
  const message = `is deprecated and blocked during a brownout window; leave it out (${item.link})`;
  if (match.on === 'parameter') return { in: match.in as Violation['in'], name: match.name, message };
  // The member as the body holds it (`/items/0/note`): its path, the first array entry for `*`.
  const path = (sentPath(item) ?? []).map((part) => (part === '*' ? '0' : part));
  return { in: 'body', name: `/${path.join('/')}`, message };
}

/** The answer without the withheld properties (its ETag, over the full representation, is kept). */
async function withhold(response: Response, withheld: readonly ResponseItem[]): Promise<Response> {
  if (!response.headers.get('content-type')?.includes('json')) return response;
  const json = (await response.json()) as unknown;
  for (const { paths } of withheld) for (const path of paths) remove(json, path);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  // A write's ETag was made before the trim; a read's already names the trimmed representation.
  const etag = headers.get('etag');
  if (etag && !etag.endsWith('-withheld"')) headers.set('etag', etag.replace(/"$/, '-withheld"'));
  return new Response(JSON.stringify(json), { status: response.status, headers });
}

/** Deletes the member at `path` (`*` = in every array item). */
function remove(value: unknown, path: readonly string[]): void {
  if (value === null || typeof value !== 'object' || path.length === 0) return;
  const [head, ...rest] = path as [string, ...string[]];
  if (head === '*') {
    if (Array.isArray(value)) for (const entry of value) remove(entry, rest);
    return;
  }
  const record = value as Record<string, unknown>;
  if (rest.length === 0) delete record[head];
  else remove(record[head], rest);
}

/**
 * The signal headers of the deprecated items a caller uses, with the brownout windows announced for them
 * in `Brownout`. An answer that a brownout trimmed says so to every caller: the running window of each
 * withheld item is in `Brownout`, marked `; withheld="<item id>"`. `usage`, the caller's own usage path
 * (a caller with a key), joins the deprecation links as `rel="related"` JSON.
 */
export function signalHeaders(
  items: readonly RegistryItem[],
  announced: (id: string) => BrownoutWindow[] = () => [],
  withheld: readonly RegistryItem[] = [],
  usage?: string,
): Record<string, string> {
  const signal = signalOf([...items]);
  const brownout = brownoutHeader([...new Set([...items, ...withheld])], announced, withheld);
  const links = signal?.links.map((link) => `<${link}>; rel="deprecation"; type="text/html"`) ?? [];
  if (signal && usage) links.push(`<${usage}>; rel="related"; type="application/json"`);
  return {
    ...(signal?.deprecation ? { Deprecation: signal.deprecation } : {}),
    ...(signal?.sunset ? { Sunset: signal.sunset } : {}),
    ...(signal ? { Link: links.join(', ') } : {}),
    ...(brownout && (signal || withheld.length > 0) ? { Brownout: brownout } : {}),
  };
}
