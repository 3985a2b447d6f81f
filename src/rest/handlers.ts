/**
 * The REST operations, one per `operationId` of contracts/openapi.yaml. Each maps the validated request
 * to one core call and the result to the contract's shape; the rules live in the core.
 */
import type { Core } from '../core/index.js';
import { createApiKeyHandlers } from './api-key-handlers.js';
import { createCatalogHandlers } from './catalog-handlers.js';
import { createDeprecatedUsageHandlers } from './deprecated-usage-handlers.js';
import { createDeprecationHandlers } from './deprecation-handlers.js';
import { createOrderHandlers } from './order-handlers.js';
import { createOrderPartHandlers } from './order-part-handlers.js';
import type { RestHandlers } from './respond.js';
import { createUserHandlers } from './user-handlers.js';
import { createWebhookHandlers } from './webhook-handlers.js';

/** Builds every operation's handler over the core, keyed by operationId; the compiler checks none is missing. */
export function createHandlers(core: Core): RestHandlers {
  return {
    ...createOrderHandlers(core),
    ...createOrderPartHandlers(core),
    ...createUserHandlers(core),
    ...createCatalogHandlers(core),
    ...createApiKeyHandlers(core),
    ...createDeprecationHandlers(core),
    ...createDeprecatedUsageHandlers(core),
    ...createWebhookHandlers(core),
  };
}
