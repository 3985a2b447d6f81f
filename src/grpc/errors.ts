import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { type ErrorInfo, ErrorInfoSchema } from '../../generated/proto/google/rpc/error_details_pb.js';
import { DomainError, type ErrorCode, errorCatalog } from '../core/errors.js';

/** The `domain` of every ErrorInfo this service attaches. */
export const ERROR_DOMAIN = 'inventory.order-api.example.com';

const codeByName: Record<string, Code> = {
  INVALID_ARGUMENT: Code.InvalidArgument,
  NOT_FOUND: Code.NotFound,
  FAILED_PRECONDITION: Code.FailedPrecondition,
  DEADLINE_EXCEEDED: Code.DeadlineExceeded,
  UNAUTHENTICATED: Code.Unauthenticated,
  PERMISSION_DENIED: Code.PermissionDenied,
  ABORTED: Code.Aborted,
  RESOURCE_EXHAUSTED: Code.ResourceExhausted,
  UNIMPLEMENTED: Code.Unimplemented,
  UNAVAILABLE: Code.Unavailable,
  INTERNAL: Code.Internal,
};

/**
 * The longest `grpc-message` sent: a detail that echoes the caller's input (an unknown SKU) must not grow
 * the trailers beyond what clients accept (grpc-go refuses header lists above 16 KiB by default).
 */
export const MAX_STATUS_MESSAGE_CHARS = 512;

const capped = (message: string) =>
  message.length > MAX_STATUS_MESSAGE_CHARS ? `${message.slice(0, MAX_STATUS_MESSAGE_CHARS - 1)}…` : message;

/**
 * Maps any failure to a gRPC status, in one place: a domain error gets its catalog's gRPC code, its
 * detail as the message and an ErrorInfo with the catalog code as `reason`; anything else is INTERNAL
 * with nothing of its internals.
 */
export function toConnectError(error: unknown): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof DomainError) {
    const info: ErrorInfo = create(ErrorInfoSchema, { reason: error.code, domain: ERROR_DOMAIN });
    return new ConnectError(capped(error.detail), codeByName[error.spec.grpcCode] ?? Code.Internal, undefined, [
      { desc: ErrorInfoSchema, value: info },
    ]);
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
