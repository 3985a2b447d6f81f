/**
 * What a Connect handler sees of a grpc-js call (src/grpc/grpc-js-server.ts), and what a ConnectError
 * becomes on the wire there.
 */
import type { DescMethod, DescService } from '@bufbuild/protobuf';
import { Code, ConnectError, createContextValues, type HandlerContext } from '@connectrpc/connect';
import { setTrailerStatus } from '@connectrpc/connect/protocol-grpc';
import * as grpc from '@grpc/grpc-js';
import { toConnectError } from './errors.js';

/**
 * A Connect `HandlerContext` over one grpc-js call. What most calls never read is built on first use: the
 * request headers (from the metadata), the response headers and trailers, the context values.
 */
export class CallContext implements HandlerContext {
  readonly service: DescService;
  readonly requestMethod = 'POST';
  readonly protocolName = 'grpc';
  readonly timeoutMs: () => number | undefined;
  /** The deadline (ms since the epoch), when the caller set one. */
  private readonly deadlineAt: number | undefined;
  private controller?: AbortController;
  private deadlineTimer?: NodeJS.Timeout;
  private onCancelled?: () => void;
  private ended = false;
  private requestHeaders?: Headers;
  private responseHeaders?: Headers;
  private responseTrailers?: Headers;
  private contextValues?: HandlerContext['values'];
  private headerSent = false;

  constructor(
    readonly method: DescMethod,
    private readonly call: grpc.ServerUnaryCall<Buffer, unknown> | grpc.ServerWritableStream<Buffer, unknown>,
  ) {
    this.service = method.parent;
    const deadline = call.getDeadline();
    const at = deadline instanceof Date ? deadline.getTime() : deadline;
    this.deadlineAt = Number.isFinite(at) ? at : undefined;
    this.timeoutMs = this.deadlineAt === undefined ? () => undefined : () => (this.deadlineAt as number) - Date.now();
  }

  /**
   * Aborts when the caller cancels or its deadline passes (grpc-js answers DEADLINE_EXCEEDED itself; the
   * handler must learn of it to stop its work). Made on first use: a call whose handler never looks at it
   * (a read) pays for no controller, listener or timer.
   */
  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    const controller = new AbortController();
    this.controller = controller;
    if (this.ended) return controller.signal;
    if (this.call.cancelled) {
      controller.abort(new ConnectError('the call was cancelled', Code.Canceled));
      return controller.signal;
    }
    if (this.deadlineAt !== undefined) {
      this.deadlineTimer = setTimeout(
        () => this.abort(new ConnectError('the operation timed out', Code.DeadlineExceeded)),
        Math.max(0, this.deadlineAt - Date.now()),
      );
    }
    this.onCancelled = () => this.abort(new ConnectError('the call was cancelled', Code.Canceled));
    this.call.once('cancelled', this.onCancelled);
    return controller.signal;
  }

  get url(): string {
    return this.call.getPath();
  }

  get peer() {
    return { addr: this.call.getPeer() };
  }

  get requestHeader(): Headers {
    this.requestHeaders ??= headersOf(this.call.metadata);
    return this.requestHeaders;
  }

  /** One request header as `requestHeader.get` gives it, read from the metadata without building Headers. */
  requestHeaderValue(name: string): string | null {
    if (this.requestHeaders) return this.requestHeaders.get(name);
    const values = this.call.metadata.get(name);
    if (values.length === 0) return null;
    const text = values.map((value) => (typeof value === 'string' ? value : Buffer.from(value).toString('base64')));
    return text.join(', ');
  }

  get responseHeader(): Headers {
    this.responseHeaders ??= new Headers();
    return this.responseHeaders;
  }

  get responseTrailer(): Headers {
    this.responseTrailers ??= new Headers();
    return this.responseTrailers;
  }

  get values(): HandlerContext['values'] {
    this.contextValues ??= createContextValues();
    return this.contextValues;
  }

  private abort(reason: ConnectError): void {
    if (this.controller && !this.controller.signal.aborted) this.controller.abort(reason);
  }

  /** The call has answered: no timer or listener outlives it. */
  end(): void {
    this.ended = true;
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    if (this.onCancelled) this.call.removeListener('cancelled', this.onCancelled);
  }

  /** Sends the response headers once, when the handler set any. */
  sendHeader(): void {
    if (this.headerSent) return;
    this.headerSent = true;
    if (this.responseHeaders && hasAny(this.responseHeaders)) this.call.sendMetadata(metadataOf(this.responseHeaders));
  }

  /** The response trailers as metadata, when the handler set any. */
  trailer(): grpc.Metadata | undefined {
    return this.responseTrailers && hasAny(this.responseTrailers) ? metadataOf(this.responseTrailers) : undefined;
  }
}

/**
 * A failure as grpc-js sends it: the Connect code and message, the error's metadata and the context's
 * trailers, and `grpc-status-details-bin` encoded by connect's own gRPC trailer writer (the same bytes
 * connect-node sends).
 */
export function statusOf(thrown: unknown, context: CallContext): Partial<grpc.StatusObject> {
  const error = toConnectError(thrown);
  const metadata = metadataOf(error.metadata);
  const trailer = context.trailer();
  if (trailer) metadata.merge(trailer);
  const status = new Headers();
  setTrailerStatus(status, error);
  const details = status.get('grpc-status-details-bin');
  if (details) metadata.set('grpc-status-details-bin', Buffer.from(details, 'base64'));
  return { code: error.code as number as grpc.status, details: error.rawMessage, metadata };
}

const hasAny = (headers: Headers) => !headers.keys().next().done;

/** Response headers as grpc-js metadata (`-bin` values are base64 in Headers, bytes in metadata). */
function metadataOf(headers: Headers): grpc.Metadata {
  const metadata = new grpc.Metadata();
  headers.forEach((value, key) => {
    if (key === 'grpc-status' || key === 'grpc-message') return;
    if (key.endsWith('-bin')) metadata.set(key, Buffer.from(value, 'base64'));
    else metadata.set(key, value);
  });
  return metadata;
}

/** Request metadata as the Headers a Connect handler reads. */
function headersOf(metadata: grpc.Metadata): Headers {
  const headers = new Headers();
  for (const [key, values] of Object.entries(metadata.toJSON())) {
    for (const value of values) {
      headers.append(key, typeof value === 'string' ? value : Buffer.from(value).toString('base64'));
    }
  }
  return headers;
}

/**
 * One request header of a call, on either host: on the grpc-js host read from its metadata directly (most
 * calls then never build a `Headers`), elsewhere from `requestHeader`.
 */
export function requestHeaderOf(context: HandlerContext, name: string): string | null {
  return context instanceof CallContext ? context.requestHeaderValue(name) : context.requestHeader.get(name);
}
