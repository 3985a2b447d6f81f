/**
 * The webhook limits of one owner, where an admin lifts (or lowers) the server's defaults for it
 * (`GET/PUT /v1/users/{userId}/webhook-limits`): how many endpoints it may hold, how many deliveries its
 * endpoints get a minute. `null` is the server's default (WEBHOOK_MAX_ENDPOINTS,
 * WEBHOOK_DELIVERIES_PER_MINUTE). The endpoint service and the dispatcher read them where they decide.
 */

import type { WebhookLimits, WebhookStore } from '../ports/index.js';
import { type Caller, requireAdmin, userNotFound } from '../shared/index.js';

/** Creates the webhook limits service (admins only). */
export function createWebhookLimits(webhooks: Pick<WebhookStore, 'limits' | 'setLimits'>) {
  return {
    async get(caller: Caller, userId: number): Promise<WebhookLimits> {
      requireAdmin(caller, "read a user's webhook limits");
      const limits = await webhooks.limits(userId);
      if (!limits) throw userNotFound(userId);
      return limits;
    },
    /** Sets the whole of a user's limits. */
    async replace(caller: Caller, userId: number, input: Omit<WebhookLimits, 'userId'>): Promise<WebhookLimits> {
      requireAdmin(caller, "set a user's webhook limits");
      const limits = await webhooks.setLimits(userId, input);
      if (!limits) throw userNotFound(userId);
      return limits;
    },
  };
}
