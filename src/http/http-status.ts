import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorCode } from '../core/errors.js';

/**
 * The HTTP status of each catalog code on the public port: of the problem document for REST, and of the
 * response to a GraphQL request error. Exhaustive: a new code does not compile until it has a status.
 * (`TIMEOUT` is 200: the data resolved so far is returned with the error.)
 */
export const httpStatusOf = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  UNKNOWN_PARAMETER: 400,
  UNKNOWN_FIELD: 400,
  READ_ONLY_FIELD: 400,
  INVALID_CURSOR: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  INSUFFICIENT_SCOPE: 403,
  NOT_FOUND: 404,
  ORDER_NOT_FOUND: 404,
  ORDER_ITEM_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  PRODUCT_NOT_FOUND: 404,
  SHIPMENT_NOT_FOUND: 404,
  CANCELLATION_NOT_FOUND: 404,
  DRAFT_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  SKU_NOT_FOUND: 404,
  RESERVATION_NOT_FOUND: 404,
  BROWNOUT_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  INVALID_TRANSITION: 409,
  ALREADY_CANCELED: 409,
  USER_HAS_ORDERS: 409,
  DRAFT_ALREADY_ORDERED: 409,
  EMAIL_TAKEN: 409,
  SKU_TAKEN: 409,
  INSUFFICIENT_STOCK: 409,
  RESERVATION_MISMATCH: 409,
  STOCK_BELOW_RESERVED: 409,
  API_KEY_INACTIVE: 409,
  BROWNOUT_CONFLICT: 409,
  BROWNOUT: 410,
  IDEMPOTENCY_KEY_IN_USE: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  INVENTORY_UNAVAILABLE: 503,
  DATABASE_UNAVAILABLE: 503,
  UPSTREAM_TIMEOUT: 504,
  BAD_REQUEST: 400,
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  OPERATION_RESOLUTION_FAILURE: 400,
  BAD_USER_INPUT: 400,
  DEPTH_LIMIT: 400,
  COST_LIMIT: 400,
  ALIAS_LIMIT: 400,
  TOKEN_LIMIT: 400,
  DIRECTIVE_LIMIT: 400,
  PERSISTED_QUERY_NOT_FOUND: 404,
  PERSISTED_QUERY_ONLY: 403,
  REQUEST_ENTITY_TOO_LARGE: 413,
  SUBSCRIPTION_LIMIT: 429,
  TIMEOUT: 200,
} as const satisfies Record<ErrorCode, ContentfulStatusCode>;

/**
 * The status of `BROWNOUT` for a deprecated parameter or request body member: the request is refused as
 * it would be once the member is gone (a bad request), where a browned-out operation is gone (410).
 */
export const BROWNOUT_OF_INPUT_STATUS = 400 satisfies ContentfulStatusCode;
