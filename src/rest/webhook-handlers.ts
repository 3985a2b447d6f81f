import { webhookEndpointRepresentation } from '../core/events/representations.js';
import type { EndpointWithSecret } from '../core/events/webhook-endpoints.js';
import type { Core } from '../core/index.js';
import type { WebhookAttempt, WebhookEndpoint } from '../core/ports/index.js';
import { type EventType, type StoredEvent, toEnvelope } from '../core/shared/events.js';
import { pageJson } from './mappers.js';
import { json, noContent, type RestHandlerGroup, type Schemas } from './respond.js';
import { callerOf, listInput, pathId } from './validated-request.js';

const endpointJson = (endpoint: WebhookEndpoint): Schemas['WebhookEndpoint'] =>
  webhookEndpointRepresentation(endpoint) as Schemas['WebhookEndpoint'];

const attemptJson = (attempt: WebhookAttempt): Schemas['WebhookDelivery'] => ({
  id: attempt.id,
  eventId: attempt.eventId,
  eventType: attempt.eventType,
  attempt: attempt.attempt,
  status: attempt.status,
  durationMs: attempt.durationMs,
  error: attempt.error,
  attemptedAt: attempt.attemptedAt.toISOString(),
  nextRetryAt: attempt.nextRetryAt?.toISOString() ?? null,
});

/** The envelope, as webhooks deliver it. */
const eventJson = (event: StoredEvent) => toEnvelope(event) as Schemas['Event'];

/** Webhook endpoints, their log and redeliveries, and the list of events. */
export function createWebhookHandlers(core: Core) {
  // The secret is shown once: never cache an answer that carries one.
  const withSecret = (
    request: { c: Parameters<typeof json>[0]; base: string },
    { endpoint, secret }: EndpointWithSecret,
  ) =>
    json(
      request.c,
      201,
      { ...endpointJson(endpoint), secret },
      { 'Cache-Control': 'no-store', Location: `${request.base}/webhook-endpoints/${endpoint.id}` },
    );
  const id = (request: Parameters<typeof callerOf>[0]) => pathId(request, 'webhookEndpointId');

  return {
    async listWebhookEndpoints(request) {
      const page = await core.webhooks.list(callerOf(request), listInput(request.query));
      return json(request.c, 200, pageJson(page, endpointJson));
    },
    async createWebhookEndpoint(request) {
      const body = request.body as Schemas['WebhookEndpointCreate'];
      const created = await core.webhooks.create(callerOf(request), {
        url: body.url,
        events: body.events as EventType[],
        ...(body.description !== undefined ? { description: body.description } : {}),
      });
      return withSecret(request, created);
    },
    async getWebhookEndpoint(request) {
      return json(request.c, 200, endpointJson(await core.webhooks.get(callerOf(request), id(request))));
    },
    async updateWebhookEndpoint(request) {
      const body = request.body as Schemas['WebhookEndpointPatch'];
      const endpoint = await core.webhooks.update(callerOf(request), id(request), {
        ...(body.url !== undefined ? { url: body.url } : {}),
        ...(body.events !== undefined ? { events: body.events as EventType[] } : {}),
        ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
      });
      return json(request.c, 200, endpointJson(endpoint));
    },
    async deleteWebhookEndpoint(request) {
      await core.webhooks.remove(callerOf(request), id(request));
      return noContent(request.c);
    },
    async rotateWebhookSecret(request) {
      return withSecret(request, await core.webhooks.rotateSecret(callerOf(request), id(request)));
    },
    async listWebhookDeliveries(request) {
      const page = await core.webhooks.deliveries(callerOf(request), id(request), listInput(request.query));
      return json(request.c, 200, pageJson(page, attemptJson));
    },
    async redeliverWebhookEvent(request) {
      const { eventId } = request.body as Schemas['WebhookRedelivery'];
      await core.webhooks.redeliver(callerOf(request), id(request), eventId);
      return json(request.c, 202, { eventId });
    },
    async getWebhookLimits(request) {
      return json(request.c, 200, await core.webhookLimits.get(callerOf(request), pathId(request, 'userId')));
    },
    async replaceWebhookLimits(request) {
      const { endpoints, deliveriesPerMinute } = request.body as Schemas['WebhookLimitsReplace'];
      const limits = await core.webhookLimits.replace(callerOf(request), pathId(request, 'userId'), {
        endpoints,
        deliveriesPerMinute,
      });
      return json(request.c, 200, limits);
    },
    async listEvents(request) {
      const { type, createdAfter } = request.query;
      const page = await core.listEvents(callerOf(request), {
        ...listInput(request.query),
        ...(type ? { types: type.split(',') as EventType[] } : {}),
        ...(createdAfter ? { createdAfter: new Date(createdAfter) } : {}),
      });
      return json(request.c, 200, pageJson(page, eventJson));
    },
  } satisfies RestHandlerGroup;
}
