/** How a failure is presented by each transport; each transport maps this data in one place. */
export interface ErrorSpec {
  title: string;
  httpStatus: number;
  /** gRPC status code name (google.rpc.Code), e.g. `NOT_FOUND`. */
  grpcCode: string;
  description: string;
}

const notFound = (what: string): ErrorSpec => ({
  title: `${what} not found`,
  httpStatus: 404,
  grpcCode: 'NOT_FOUND',
  description: `The ${what.toLowerCase()} does not exist, or is not visible to the caller.`,
});

const conflict = (title: string, description: string): ErrorSpec => ({
  title,
  httpStatus: 409,
  grpcCode: 'FAILED_PRECONDITION',
  description,
});

const invalid = (title: string, description: string): ErrorSpec => ({
  title,
  httpStatus: 400,
  grpcCode: 'INVALID_ARGUMENT',
  description,
});

/**
 * The one error catalog: every failure the service reports, with a stable code. New codes may be added
 * without a version change (clients default on the status class); codes are never renamed or removed.
 */
export const errorCatalog = {
  VALIDATION_FAILED: invalid('Invalid request', 'A parameter, header or body member is invalid.'),
  MALFORMED_JSON: invalid('Malformed JSON', 'The body is not valid JSON.'),
  UNKNOWN_PARAMETER: invalid(
    'Unknown query parameter',
    'A query parameter the operation does not define, or one given twice.',
  ),
  UNKNOWN_FIELD: invalid('Unknown field', 'A body member the schema does not define.'),
  READ_ONLY_FIELD: invalid(
    'Read-only field',
    'A read-only member was sent with a value different from the current one.',
  ),
  INVALID_CURSOR: invalid('Invalid cursor', 'The cursor was altered, or was made for other filters or another sort.'),
  UNAUTHENTICATED: {
    title: 'Authentication required',
    httpStatus: 401,
    grpcCode: 'UNAUTHENTICATED',
    description: 'No credential, or a wrong or revoked one.',
  },
  FORBIDDEN: {
    title: 'Forbidden',
    httpStatus: 403,
    grpcCode: 'PERMISSION_DENIED',
    description: "The caller's role does not allow the action.",
  },
  NOT_FOUND: notFound('Resource'),
  ORDER_NOT_FOUND: notFound('Order'),
  ORDER_ITEM_NOT_FOUND: notFound('Order item'),
  USER_NOT_FOUND: notFound('User'),
  PRODUCT_NOT_FOUND: notFound('Product'),
  SHIPMENT_NOT_FOUND: notFound('Shipment'),
  CANCELLATION_NOT_FOUND: notFound('Cancellation'),
  DRAFT_NOT_FOUND: notFound('Order draft'),
  API_KEY_NOT_FOUND: notFound('API key'),
  SKU_NOT_FOUND: notFound('SKU'),
  RESERVATION_NOT_FOUND: notFound('Reservation'),
  METHOD_NOT_ALLOWED: {
    title: 'Method not allowed',
    httpStatus: 405,
    grpcCode: 'UNIMPLEMENTED',
    description: 'The path exists but not with this method.',
  },
  NOT_ACCEPTABLE: {
    title: 'Not acceptable',
    httpStatus: 406,
    grpcCode: 'INVALID_ARGUMENT',
    description: 'The Accept header names no representation the API produces.',
  },
  INVALID_TRANSITION: conflict('Invalid status transition', "The order's status cannot move that way."),
  ALREADY_CANCELED: conflict('Already canceled', 'The order already has a cancellation.'),
  USER_HAS_ORDERS: conflict('User has orders', 'A user with orders cannot be deleted.'),
  DRAFT_ALREADY_ORDERED: conflict('Draft already ordered', 'The draft was already placed as an order.'),
  EMAIL_TAKEN: conflict('E-mail taken', 'Another user has this e-mail address.'),
  SKU_TAKEN: conflict('SKU taken', 'Another product has this SKU.'),
  INSUFFICIENT_STOCK: conflict('Insufficient stock', 'Not enough stock is available to reserve.'),
  RESERVATION_MISMATCH: conflict(
    'Reservation mismatch',
    'A reservation for this order and SKU exists with another quantity.',
  ),
  STOCK_BELOW_RESERVED: conflict(
    'Stock below reserved',
    'The change would take the on-hand quantity below zero or below what is reserved.',
  ),
  IDEMPOTENCY_KEY_IN_USE: {
    title: 'Idempotency key in use',
    httpStatus: 409,
    grpcCode: 'ABORTED',
    description: 'A request with this Idempotency-Key is still running.',
  },
  PRECONDITION_FAILED: {
    title: 'Precondition failed',
    httpStatus: 412,
    grpcCode: 'FAILED_PRECONDITION',
    description: 'If-Match does not match the current ETag.',
  },
  PAYLOAD_TOO_LARGE: {
    title: 'Payload too large',
    httpStatus: 413,
    grpcCode: 'RESOURCE_EXHAUSTED',
    description: 'The body is larger than 1 MiB.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    title: 'Unsupported media type',
    httpStatus: 415,
    grpcCode: 'INVALID_ARGUMENT',
    description: 'The body is not JSON.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    title: 'Idempotency key reused',
    httpStatus: 422,
    grpcCode: 'INVALID_ARGUMENT',
    description: 'The Idempotency-Key was already used with another request.',
  },
  INTERNAL: {
    title: 'Internal server error',
    httpStatus: 500,
    grpcCode: 'INTERNAL',
    description: 'The server failed; the request id identifies the failure in the logs.',
  },
  INVENTORY_UNAVAILABLE: {
    title: 'Inventory unavailable',
    httpStatus: 503,
    grpcCode: 'UNAVAILABLE',
    description: 'The inventory service could not be reached; nothing was written. Retry later.',
  },
  DATABASE_UNAVAILABLE: {
    title: 'Database unavailable',
    httpStatus: 503,
    grpcCode: 'UNAVAILABLE',
    description:
      'The database could not be reached (for example while it restarts). A write may or may not have been applied: retry with the same Idempotency-Key.',
  },
  UPSTREAM_TIMEOUT: {
    title: 'Upstream timeout',
    httpStatus: 504,
    grpcCode: 'DEADLINE_EXCEEDED',
    description: 'A call to another service did not answer within the time budget; nothing was written.',
  },
} as const satisfies Record<string, ErrorSpec>;

/** A stable error code of the catalog. */
export type ErrorCode = keyof typeof errorCatalog;

/** One violation of an input rule, named where the caller can find it. */
export interface Violation {
  in: 'path' | 'query' | 'header' | 'body';
  name: string;
  message: string;
}

/** A failure the service reports to its caller: a catalog code and a human detail. */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly violations?: Violation[],
  ) {
    super(`${code}: ${detail}`);
  }

  /** The catalog entry of this error's code. */
  get spec(): ErrorSpec {
    return errorCatalog[this.code];
  }
}

/** Builds a VALIDATION_FAILED error for one body member. */
export function invalidInput(name: string, message: string): DomainError {
  return new DomainError('VALIDATION_FAILED', `${name} ${message}.`, [{ in: 'body', name, message }]);
}
