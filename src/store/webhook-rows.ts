import type { DisabledReason, WebhookEndpoint } from '../core/ports/webhooks.js';
import type { EventType } from '../core/shared/events.js';

/** An endpoint from its row. */
export const toEndpoint = (row: Record<string, unknown>): WebhookEndpoint => ({
  id: row.id as number,
  userId: row.user_id as number,
  apiKeyId: (row.api_key_id as number | null) ?? null,
  allOwners: row.all_owners as boolean,
  url: row.url as string,
  events: row.events as EventType[],
  description: (row.description as string | null) ?? null,
  disabledReason: (row.disabled_reason as DisabledReason | null) ?? null,
  previousSecretExpiresAt: (row.previous_secret_expires_at as Date | null) ?? null,
  failingSince: (row.failing_since as Date | null) ?? null,
  createdAt: row.created_at as Date,
  updatedAt: row.updated_at as Date,
});

/** The SQL of the current time as stored (milliseconds). */
export const NOW = `date_trunc('milliseconds', now())`;
