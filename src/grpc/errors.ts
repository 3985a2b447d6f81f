import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import {
  BadRequestSchema,
  type ErrorInfo,
  ErrorInfoSchema,
} from '../../generated/proto/google/rpc/error_details_pb.js';
import { DomainError, type ErrorCode, errorCatalog } from '../core/shared/errors.js';

/** The `domain` of every ErrorInfo this service attaches. */
export const ERROR_DOMAIN = 'inventory.order-api.example.com';

/**
 * The gRPC status of each catalog code. Exhaustive: a new code does not compile until it has one. `null`
 * marks codes the Inventory service cannot report (HTTP-protocol failures and GraphQL request errors);
 * should one reach this mapping anyway it goes out as INTERNAL.
 */
export const grpcCodeOf = {
  VALIDATION_FAILED: Code.InvalidArgument,
  MALFORMED_JSON: null,
  UNKNOWN_PARAMETER: null,
  UNKNOWN_FIELD: Code.InvalidArgument,
  READ_ONLY_FIELD: Code.InvalidArgument,
  INVALID_CURSOR: Code.InvalidArgument,
  UNAUTHENTICATED: Code.Unauthenticated,
  FORBIDDEN: Code.PermissionDenied,
  INSUFFICIENT_SCOPE: Code.PermissionDenied,
  NOT_FOUND: Code.NotFound,
  ORDER_NOT_FOUND: Code.NotFound,
  ORDER_ITEM_NOT_FOUND: Code.NotFound,
  USER_NOT_FOUND: Code.NotFound,
  PRODUCT_NOT_FOUND: Code.NotFound,
  SHIPMENT_NOT_FOUND: Code.NotFound,
  CANCELLATION_NOT_FOUND: Code.NotFound,
  DRAFT_NOT_FOUND: Code.NotFound,
  API_KEY_NOT_FOUND: Code.NotFound,
  SKU_NOT_FOUND: Code.NotFound,
  RESERVATION_NOT_FOUND: Code.NotFound,
  BROWNOUT_NOT_FOUND: Code.NotFound,
  WEBHOOK_ENDPOINT_NOT_FOUND: Code.NotFound,
  EVENT_NOT_FOUND: Code.NotFound,
  METHOD_NOT_ALLOWED: null,
  NOT_ACCEPTABLE: null,
  INVALID_TRANSITION: Code.FailedPrecondition,
  ALREADY_CANCELED: Code.FailedPrecondition,
  USER_HAS_ORDERS: Code.FailedPrecondition,
  DRAFT_ALREADY_ORDERED: Code.FailedPrecondition,
  EMAIL_TAKEN: Code.FailedPrecondition,
  SKU_TAKEN: Code.FailedPrecondition,
  INSUFFICIENT_STOCK: Code.FailedPrecondition,
  RESERVATION_MISMATCH: Code.FailedPrecondition,
  STOCK_BELOW_RESERVED: Code.FailedPrecondition,
  API_KEY_INACTIVE: null,
  WEBHOOK_ENDPOINT_LIMIT: null,
  WEBHOOK_URL_TAKEN: null,
  BROWNOUT_CONFLICT: Code.FailedPrecondition,
  BROWNOUT: Code.FailedPrecondition,
  IDEMPOTENCY_KEY_IN_USE: Code.Aborted,
  PRECONDITION_FAILED: Code.FailedPrecondition,
  PAYLOAD_TOO_LARGE: null,
  UNSUPPORTED_MEDIA_TYPE: null,
  IDEMPOTENCY_KEY_REUSED: Code.InvalidArgument,
  RATE_LIMITED: Code.ResourceExhausted,
  INTERNAL: Code.Internal,
  INVENTORY_UNAVAILABLE: Code.Unavailable,
  DATABASE_UNAVAILABLE: Code.Unavailable,
  UPSTREAM_TIMEOUT: Code.DeadlineExceeded,
  BAD_REQUEST: null,
  GRAPHQL_PARSE_FAILED: null,
  GRAPHQL_VALIDATION_FAILED: null,
  OPERATION_RESOLUTION_FAILURE: null,
  BAD_USER_INPUT: null,
  DEPTH_LIMIT: null,
  COST_LIMIT: null,
  ALIAS_LIMIT: null,
  TOKEN_LIMIT: null,
  DIRECTIVE_LIMIT: null,
  PERSISTED_QUERY_NOT_FOUND: null,
  PERSISTED_QUERY_ONLY: null,
  REQUEST_ENTITY_TOO_LARGE: null,
  SUBSCRIPTION_LIMIT: null,
  TIMEOUT: null,
} as const satisfies Record<ErrorCode, Code | null>;

/** The google.rpc.Code name of a catalog code's gRPC status (`NOT_FOUND`), or undefined when gRPC never reports it. */
export function grpcCodeNameOf(code: ErrorCode): string | undefined {
  const status = grpcCodeOf[code];
  return status === null ? undefined : Code[status].replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

/**
 * The longest `grpc-message` sent: a detail that echoes the caller's input (an unknown SKU) must not grow
 * the trailers beyond what clients accept (grpc-go refuses header lists above 16 KiB by default).
 */
export const MAX_STATUS_MESSAGE_CHARS = 512;

const capped = (message: string) =>
  message.length > MAX_STATUS_MESSAGE_CHARS ? `${message.slice(0, MAX_STATUS_MESSAGE_CHARS - 1)}…` : message;

/**
 * Maps any failure to a gRPC status, in one place: a domain error gets its catalog's gRPC code, its
 * detail as the message, an ErrorInfo with the catalog code as `reason` and, when it names the fields at
 * fault, a BadRequest with one FieldViolation each; anything else is INTERNAL with nothing of its internals.
 */
export function toConnectError(error: unknown): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof DomainError) {
    const info: ErrorInfo = create(ErrorInfoSchema, { reason: error.code, domain: ERROR_DOMAIN });
    const details: ConstructorParameters<typeof ConnectError>[3] = [{ desc: ErrorInfoSchema, value: info }];
    if (error.violations?.length) {
      const fieldViolations = error.violations.map(({ name, message }) => ({ field: name, description: message }));
      details.push({ desc: BadRequestSchema, value: create(BadRequestSchema, { fieldViolations }) });
    }
    return new ConnectError(capped(error.detail), grpcCodeOf[error.code] ?? Code.Internal, undefined, details);
  }
  return new ConnectError('internal error', Code.Internal);
}

/**
 * Maps a status received from the Inventory service back to the catalog: the ErrorInfo `reason` when it
 * names a known code, else the status code (a deadline is UPSTREAM_TIMEOUT; an unreachable service is
 * INVENTORY_UNAVAILABLE).
 */
export function fromConnectError(error: unknown): unknown {
  const connectError = ConnectError.from(error);
  if (connectError.code === Code.DeadlineExceeded || connectError.code === Code.Canceled) {
    return new DomainError('UPSTREAM_TIMEOUT', 'Stock could not be reserved in time; no order was placed.');
  }
  const reason = connectError.findDetails(ErrorInfoSchema)[0]?.reason;
  if (reason && Object.hasOwn(errorCatalog, reason))
    return new DomainError(reason as ErrorCode, connectError.rawMessage);
  if (connectError.code === Code.Unavailable) {
    return new DomainError('INVENTORY_UNAVAILABLE', 'The inventory service cannot be reached; no order was placed.');
  }
  return error;
}
