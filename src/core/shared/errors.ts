/**
 * What a code means, the same on every interface. How each interface puts it on the wire (an HTTP status,
 * a gRPC code) is that transport's own exhaustive table: src/http/http-status.ts, src/grpc/errors.ts.
 */
export interface ErrorSpec {
  title: string;
  description: string;
  /** Only GraphQL reports this code (a request error of the GraphQL layer, before any use case runs). */
  graphqlOnly?: true;
  /** Only the REST API reports this code (the HTTP protocol, or a resource only REST serves). */
  restOnly?: true;
  /**
   * Only the inventory service reports this code (gRPC): order placement cannot meet it, since every
   * product has a stock record and every placement reserves under a new order id.
   */
  inventoryOnly?: true;
}

const spec = (title: string, description: string): ErrorSpec => ({ title, description });
const graphql = (title: string, description: string): ErrorSpec => ({ title, description, graphqlOnly: true });
const rest = (title: string, description: string): ErrorSpec => ({ title, description, restOnly: true });
const inventory = (title: string, description: string): ErrorSpec => ({ title, description, inventoryOnly: true });
const notFound = (what: string, only: (title: string, description: string) => ErrorSpec = spec): ErrorSpec =>
  only(`${what} not found`, `The ${what.toLowerCase()} does not exist, or is not visible to the caller.`);

/**
 * The one error catalog: every failure the service reports, with a stable code. New codes may be added
 * without a version change (clients default on the status class); codes are never renamed or removed.
 */
export const errorCatalog = {
  VALIDATION_FAILED: spec('Invalid request', 'A parameter, header or body member is invalid.'),
  MALFORMED_JSON: rest('Malformed JSON', 'The body is not valid JSON.'),
  UNKNOWN_PARAMETER: rest(
    'Unknown query parameter',
    'A query parameter the operation does not define, or one given twice.',
  ),
  UNKNOWN_FIELD: rest('Unknown field', 'A body member the schema does not define.'),
  READ_ONLY_FIELD: rest('Read-only field', 'A read-only member was sent with a value different from the current one.'),
  INVALID_CURSOR: spec('Invalid cursor', 'The cursor was altered, or was made for other filters or another sort.'),
  UNAUTHENTICATED: spec('Authentication required', 'No credential, or a wrong, revoked or expired one.'),
  FORBIDDEN: spec('Forbidden', "The caller's role does not allow the action."),
  INSUFFICIENT_SCOPE: spec(
    'Insufficient scope',
    'The API key does not hold the scope the operation needs (named in `requiredScope`); a key with it must be used.',
  ),
  NOT_FOUND: notFound('Resource', rest),
  ORDER_NOT_FOUND: notFound('Order'),
  ORDER_ITEM_NOT_FOUND: notFound('Order item', rest),
  USER_NOT_FOUND: notFound('User'),
  PRODUCT_NOT_FOUND: notFound('Product'),
  SHIPMENT_NOT_FOUND: notFound('Shipment'),
  CANCELLATION_NOT_FOUND: notFound('Cancellation', rest),
  DRAFT_NOT_FOUND: notFound('Order draft'),
  API_KEY_NOT_FOUND: notFound('API key', rest),
  SKU_NOT_FOUND: notFound('SKU', inventory),
  RESERVATION_NOT_FOUND: notFound('Reservation', inventory),
  BROWNOUT_NOT_FOUND: notFound('Brownout window', rest),
  WEBHOOK_ENDPOINT_NOT_FOUND: notFound('Webhook endpoint', rest),
  EVENT_NOT_FOUND: notFound('Event', rest),
  METHOD_NOT_ALLOWED: rest('Method not allowed', 'The path exists but not with this method.'),
  NOT_ACCEPTABLE: rest('Not acceptable', 'The Accept header names no representation the API produces.'),
  INVALID_TRANSITION: spec('Invalid status transition', "The order's status cannot move that way."),
  ALREADY_CANCELED: spec('Already canceled', 'The order already has a cancellation.'),
  USER_HAS_ORDERS: spec('User has orders', 'A user with orders cannot be deleted.'),
  DRAFT_ALREADY_ORDERED: spec('Draft already ordered', 'The draft was already placed as an order.'),
  EMAIL_TAKEN: spec('E-mail taken', 'Another user has this e-mail address.'),
  SKU_TAKEN: spec('SKU taken', 'Another product has this SKU.'),
  INSUFFICIENT_STOCK: spec('Insufficient stock', 'Not enough stock is available to reserve.'),
  RESERVATION_MISMATCH: inventory(
    'Reservation mismatch',
    'A reservation for this order and SKU exists with another quantity.',
  ),
  STOCK_BELOW_RESERVED: inventory(
    'Stock below reserved',
    'The change would take the on-hand quantity below zero or below what is reserved.',
  ),
  API_KEY_INACTIVE: rest(
    'API key inactive',
    'The key is revoked, expired or already rotated, so it cannot be rotated.',
  ),
  WEBHOOK_ENDPOINT_LIMIT: rest(
    'Webhook endpoint limit',
    'The owner already holds as many webhook endpoints as the server allows; delete one first.',
  ),
  WEBHOOK_URL_TAKEN: rest('Webhook URL taken', 'The owner already has an endpoint with this URL.'),
  BROWNOUT_CONFLICT: rest(
    'Brownout conflict',
    'Another window of the item overlaps this one, or the window has already ended.',
  ),
  BROWNOUT: spec(
    'Brownout',
    'The request uses a deprecated item during an announced brownout window; it is refused until the window ends (`Retry-After`). Move off the item before its sunset.',
  ),
  IDEMPOTENCY_KEY_IN_USE: spec('Idempotency key in use', 'A request with this Idempotency-Key is still running.'),
  PRECONDITION_FAILED: rest('Precondition failed', 'If-Match does not match the current ETag.'),
  PAYLOAD_TOO_LARGE: rest('Payload too large', 'The body is larger than 1 MiB.'),
  UNSUPPORTED_MEDIA_TYPE: rest('Unsupported media type', 'The body is not JSON.'),
  IDEMPOTENCY_KEY_REUSED: spec('Idempotency key reused', 'The Idempotency-Key was already used with another request.'),
  INTERNAL: spec('Internal server error', 'The server failed; the request id identifies the failure in the logs.'),
  INVENTORY_UNAVAILABLE: spec(
    'Inventory unavailable',
    'The inventory service could not be reached; nothing was written. Retry later.',
  ),
  DATABASE_UNAVAILABLE: spec(
    'Database unavailable',
    'The database could not be reached (for example while it restarts). A write may or may not have been applied: retry with the same Idempotency-Key.',
  ),
  RATE_LIMITED: spec(
    'Rate limited',
    "The caller's rate budget is spent; nothing was done. Retry after the seconds in `Retry-After` (the `RateLimit` header tells the budget left).",
  ),
  UPSTREAM_TIMEOUT: spec(
    'Upstream timeout',
    'The request could not be done within its time budget (a call to another service did not answer in time, or the budget ran out before the write); nothing was written. Retry after Retry-After.',
  ),
  // GraphQL request errors (spec §7.2 and §8): reported only at /graphql, before any use case runs.
  BAD_REQUEST: graphql(
    'Bad GraphQL request',
    'The body is not JSON, has no query, or uses a method the operation does not allow.',
  ),
  GRAPHQL_PARSE_FAILED: graphql('GraphQL parse failed', 'The document does not parse.'),
  GRAPHQL_VALIDATION_FAILED: graphql('GraphQL validation failed', 'The document does not validate against the schema.'),
  OPERATION_RESOLUTION_FAILURE: graphql(
    'Operation not resolved',
    'Several operations and no operationName, or one that names none.',
  ),
  BAD_USER_INPUT: graphql(
    'Bad user input',
    'A variable is missing or does not coerce to its type, or a string holds U+0000.',
  ),
  DEPTH_LIMIT: graphql('Depth limit', 'The operation nests deeper than the limit.'),
  COST_LIMIT: graphql('Cost limit', 'The operation costs more than the limit, by the cost model of the schema.'),
  ALIAS_LIMIT: graphql('Alias limit', 'The operation uses more aliases than the limit.'),
  TOKEN_LIMIT: graphql('Token limit', 'The document has more tokens than the limit.'),
  DIRECTIVE_LIMIT: graphql('Directive limit', 'The operation uses more directives than the limit.'),
  PERSISTED_QUERY_NOT_FOUND: graphql('Unknown persisted operation', 'No persisted operation has this id.'),
  PERSISTED_QUERY_ONLY: graphql(
    'Persisted operations only',
    'The server runs only persisted operations, named by their id.',
  ),
  REQUEST_ENTITY_TOO_LARGE: graphql(
    'Request too large',
    'The GraphQL request body is larger than its limit (1 MiB, as REST bodies, unless the operator set another).',
  ),
  SUBSCRIPTION_LIMIT: graphql(
    'Subscription limit',
    'The API key already holds as many open subscriptions as allowed; complete one before opening another.',
  ),
  TIMEOUT: graphql(
    'Execution timed out',
    'Execution stopped at the time budget; the data resolved so far is returned.',
  ),
} as const satisfies Record<string, ErrorSpec>;

/** A stable error code of the catalog. */
export type ErrorCode = keyof typeof errorCatalog;

/** One violation of an input rule, named where the caller can find it. */
export interface Violation {
  in: 'path' | 'query' | 'header' | 'body';
  name: string;
  message: string;
}

/** Members a code adds to its error on every interface (a problem document's members, GraphQL extensions). */
export interface ErrorMembers {
  /** INSUFFICIENT_SCOPE: the scope the operation needs. */
  requiredScope?: string;
}

/** A failure the service reports to its caller: a catalog code and a human detail. */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly violations?: Violation[],
    readonly members?: ErrorMembers,
    /** When a retry may succeed, in whole seconds (REST `Retry-After`, GraphQL `extensions.retryAfterSeconds`). */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${code}: ${detail}`);
  }
}

/** Builds a VALIDATION_FAILED error for one body member. */
export function invalidInput(name: string, message: string): DomainError {
  return new DomainError('VALIDATION_FAILED', `${name} ${message}.`, [{ in: 'body', name, message }]);
}

/**
 * USER_NOT_FOUND for user `id`; `fromBody` names the body member that gave it (`/userId`), when a request
 * body named the user rather than its path.
 */
export function userNotFound(id: number, fromBody?: string): DomainError {
  return new DomainError(
    'USER_NOT_FOUND',
    `There is no user ${id}.`,
    fromBody ? [{ in: 'body', name: fromBody, message: 'names no user' }] : undefined,
  );
}
