/**
 * Webhook endpoints as a use case: who may register what, the target rules (SSRF), secrets shown once, the
 * delivery log and redelivery. A customer manages its own endpoints and receives its own orders' events.
 */
import { randomBytes } from 'node:crypto';
import type { EventStore, WebhookAttempt, WebhookEndpoint, WebhookStore } from '../ports/index.js';
import type { CursorCodec } from '../shared/index.js';
import {
  type Caller,
  canSee,
  DomainError,
  type EventType,
  insufficientScope,
  type ListInput,
  readPage,
  readScopeOf,
  scopesOf,
} from '../shared/index.js';
import { checkWebhookTarget, type ResolveHost } from './webhook-targets.js';

/** How long a rotated secret keeps signing beside the new one. */
const SECRET_OVERLAP_MS = 24 * 3600 * 1000;
/** Events older than this are not listed, nor redelivered. */
export const EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000;
/** Event types only admins' endpoints receive. */
const ADMIN_ONLY: readonly EventType[] = ['stock.changed'];

/** What the webhook service is built from. */
export interface WebhookServiceDeps {
  webhooks: WebhookStore;
  events: EventStore;
  cursors: CursorCodec;
  resolve: ResolveHost;
  allowPrivateTargets: boolean;
  /** Endpoints one owner may hold (WEBHOOK_MAX_ENDPOINTS); those registered before a lower cap stay. */
  maxEndpointsPerOwner: number;
  now?: () => Date;
}

/** What registers an endpoint. */
export interface EndpointInput {
  url: string;
  events: EventType[];
  description?: string;
}

/** An endpoint with the secret that is shown once. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const byId = [{ field: 'id', descending: true }];

/** Creates the webhook endpoint service. */
export function createWebhookService(deps: WebhookServiceDeps) {
  const { webhooks } = deps;
  const now = deps.now ?? (() => new Date());
  const visible = async (caller: Caller, id: number): Promise<WebhookEndpoint> => {
    const endpoint = await webhooks.get(id);
    if (!endpoint || !canSee(caller, endpoint.userId)) {
      throw new DomainError('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint has the id ${id}.`);
    }
    return endpoint;
  };
  const { checkEvents, checkUrl, checkRoom } = endpointRules(deps);
  const checkTarget = (url: string) => checkWebhookTarget(url, deps.allowPrivateTargets, deps.resolve);

  return {
    /** Registers an endpoint; the secret is in the answer only. */
    async create(caller: Caller, input: EndpointInput): Promise<EndpointWithSecret> {
      checkEvents(caller, input.events);
      const max = await checkRoom(caller.userId);
      await checkUrl(caller.userId, input.url);
      await checkTarget(input.url);
      const secret = newSecret();
      const endpoint = await webhooks.insert(
        {
          userId: caller.userId,
          apiKeyId: caller.apiKeyId,
          allOwners: caller.role === 'admin',
          url: input.url,
          events: [...new Set(input.events)],
          description: input.description ?? null,
          secret,
        },
        max,
      );
      // Checked above for a clear answer; decided here, under the owner's lock, for registrations at once.
      if (endpoint === 'limit-reached') throw limitReached(max);
      if (endpoint === 'url-taken') throw urlTaken();
      return { endpoint, secret };
    },

    list: listOf(deps),

    get: visible,

    /** Changes the URL, the event types, or whether it is disabled. */
    async update(caller: Caller, id: number, patch: { url?: string; events?: EventType[]; disabled?: boolean }) {
      const endpoint = await visible(caller, id);
      if (patch.events) checkEvents(caller, patch.events);
      if (patch.url !== undefined) {
        await checkUrl(endpoint.userId, patch.url, id);
        await checkTarget(patch.url);
      }
      const disabledReason =
        patch.disabled === undefined ? undefined : patch.disabled ? (endpoint.disabledReason ?? 'requested') : null;
      const updated = await webhooks.update(id, {
        ...(patch.url !== undefined ? { url: patch.url } : {}),
        ...(patch.events ? { events: [...new Set(patch.events)] } : {}),
        ...(disabledReason !== undefined ? { disabledReason } : {}),
      });
      if (!updated) throw new DomainError('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint has the id ${id}.`);
      return updated;
    },

    ...createDeliveryLog(deps, visible, now),

    async remove(caller: Caller, id: number): Promise<void> {
      await visible(caller, id);
      await webhooks.delete(id);
    },

    /** A new secret; the old one signs beside it for 24 hours. */
    async rotateSecret(caller: Caller, id: number): Promise<EndpointWithSecret> {
      await visible(caller, id);
      const secret = newSecret();
      const endpoint = await webhooks.rotateSecret(id, secret, new Date(now().getTime() + SECRET_OVERLAP_MS));
      if (!endpoint) throw new DomainError('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint has the id ${id}.`);
      return { endpoint, secret };
    },
  };
}

/** The caller's endpoints (every endpoint for admins), newest first. */
function listOf({ webhooks, cursors }: WebhookServiceDeps) {
  return (caller: Caller, input: ListInput) =>
    readPage<WebhookEndpoint>({
      cursors,
      sort: byId,
      size: input.size,
      cursor: input.cursor,
      filters: { list: 'webhook-endpoints', owner: caller.role === 'admin' ? null : caller.userId },
      withTotal: input.withTotal,
      keys: (endpoint) => [endpoint.id],
      count: () => webhooks.count(caller.role === 'admin' ? undefined : caller.userId),
      fetch: (after, limit) =>
        webhooks.list({
          ...(caller.role === 'admin' ? {} : { userId: caller.userId }),
          ...(after ? { beforeId: after[0] as number } : {}),
          limit,
        }),
    });
}

/** An endpoint's attempts, and redelivery of an event to it. */
function createDeliveryLog(
  deps: WebhookServiceDeps,
  visible: (caller: Caller, id: number) => Promise<WebhookEndpoint>,
  now: () => Date,
) {
  const { webhooks, cursors } = deps;
  return {
    /** The endpoint's attempts, newest first. */
    async deliveries(caller: Caller, id: number, input: ListInput) {
      await visible(caller, id);
      return readPage<WebhookAttempt>({
        cursors,
        sort: byId,
        size: input.size,
        cursor: input.cursor,
        filters: { list: 'webhook-deliveries', endpoint: id },
        withTotal: input.withTotal,
        keys: (attempt) => [attempt.id],
        count: () => webhooks.countAttempts(id),
        fetch: (after, limit) => webhooks.attempts(id, { ...(after ? { beforeId: after[0] as number } : {}), limit }),
      });
    },

    /** Queues an event the endpoint's owner may see for this endpoint again. */
    async redeliver(caller: Caller, id: number, eventId: string): Promise<void> {
      const endpoint = await visible(caller, id);
      const event = await deps.events.get(eventId);
      const fresh = event && now().getTime() - event.createdAt.getTime() <= EVENT_RETENTION_MS;
      if (!event || !fresh || !(endpoint.allOwners || event.ownerUserId === endpoint.userId)) {
        throw new DomainError(
          'EVENT_NOT_FOUND',
          `No event ${eventId} of the last 30 days is visible to this endpoint.`,
        );
      }
      await webhooks.queue(id, eventId);
    },
  };
}

/** The webhook service. */
export type WebhookService = ReturnType<typeof createWebhookService>;

/**
 * The rules of registering an endpoint: it receives only what its key may read (`order.*` events carry
 * orders: `orders:read`; `stock.changed` admins only), one owner holds at most `maxEndpointsPerOwner`
 * endpoints, or what an admin set for it (`WEBHOOK_ENDPOINT_LIMIT`), and never the same URL twice (`WEBHOOK_URL_TAKEN`; across owners it
 * is allowed, since refusing it would tell one tenant another's URL).
 */
function endpointRules({ webhooks, maxEndpointsPerOwner }: WebhookServiceDeps) {
  // An endpoint receives only what its key may read (`readScopeOf`).
  const checkEvents = (caller: Caller, events: readonly EventType[]) => {
    const refused = events.find((type) => ADMIN_ONLY.includes(type));
    if (refused && caller.role !== 'admin') {
      throw new DomainError('FORBIDDEN', `Only admins' endpoints may receive ${refused} events.`);
    }
    for (const type of events) {
      const needed = readScopeOf(type);
      if (needed && !scopesOf(caller).includes(needed)) throw insufficientScope(needed, `Receiving ${type} events`);
    }
  };
  const checkUrl = async (userId: number, url: string, exceptId?: number) => {
    if (await webhooks.hasUrl(userId, url, exceptId)) throw urlTaken();
  };
  /** The owner's cap (an admin's override, else the server's), refused when reached. */
  const checkRoom = async (userId: number) => {
    const [held, limits] = await Promise.all([webhooks.count(userId), webhooks.limits(userId)]);
    const max = limits?.endpoints ?? maxEndpointsPerOwner;
    if (held >= max) throw limitReached(max);
    return max;
  };
  return { checkEvents, checkUrl, checkRoom };
}

/** An owner's URL registered twice. */
const urlTaken = () =>
  new DomainError('WEBHOOK_URL_TAKEN', 'You already have a webhook endpoint with this URL.', [
    { in: 'body', name: 'url', message: 'is already the URL of another of your endpoints' },
  ]);

/** An owner at the cap of endpoints. */
const limitReached = (max: number) =>
  new DomainError(
    'WEBHOOK_ENDPOINT_LIMIT',
    `You already hold ${max} webhook endpoints, the most allowed: delete one first.`,
  );
