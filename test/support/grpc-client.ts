import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const root = path.resolve(import.meta.dirname, '../..');

/** What the tests' gRPC client is pointed at and loaded from. */
export interface GrpcClientOptions {
  /** The server: its gRPC URL (`http://127.0.0.1:50051`, as `RunningServer.grpcUrl`) or `host:port`. */
  address: string;
  /** The .proto file, relative to `protoRoot` (default: the published `inventory/v1/inventory.proto`). */
  proto?: string;
  /** Where `proto` and its imports are found (default: `contracts/`). */
  protoRoot?: string;
  /** The service's full name in `proto` (default: `inventory.v1.Inventory`). */
  service?: string;
  /** Sent on every call as `authorization: Bearer <token>`. */
  token?: string;
  /** Sent on every call as `x-api-key`: the issued key the call is counted under. */
  apiKey?: string;
  /** The client's user-agent, as the server sees it (before grpc-js' own). */
  userAgent?: string;
  /** Each call's deadline, in ms from its start (default 5000). */
  deadlineMs?: number;
}

/** What a unary call ended with: the status code (0 = OK), its message, the reply and the metadata. */
export interface CallOutcome<Reply = Record<string, any>> {
  code: number;
  details: string;
  reply?: Reply;
  /** The response headers (initial metadata), when the server sent them. */
  headers?: grpc.Metadata;
  /** The trailers that carried the status. */
  trailers?: grpc.Metadata;
  /** The failure as grpc-js reports it (code, details, metadata), when the call failed. */
  error?: grpc.ServiceError;
  startedAt: number;
}

type Done = (error: grpc.ServiceError | null, reply?: unknown) => void;
type ServerStreaming = (
  request: unknown,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
) => grpc.ClientReadableStream<unknown>;
type Unary = (request: unknown, metadata: grpc.Metadata, options: grpc.CallOptions, done: Done) => grpc.ClientUnaryCall;

/**
 * The tests' one @grpc/grpc-js client: it loads a .proto file with @grpc/proto-loader, as another team's
 * service would (enums as names, 64-bit integers as numbers, defaults filled in), and knows nothing of
 * this project's code.
 */
export function grpcClient({
  address,
  proto = 'inventory/v1/inventory.proto',
  protoRoot = path.join(root, 'contracts'),
  service = 'inventory.v1.Inventory',
  token,
  apiKey,
  userAgent,
  deadlineMs = 5_000,
}: GrpcClientOptions) {
  const definition = protoLoader.loadSync(proto, {
    includeDirs: [protoRoot],
    enums: String,
    longs: Number,
    defaults: true,
  });
  const loaded = grpc.loadPackageDefinition(definition);
  const Service = service.split('.').reduce<any>((scope, name) => scope?.[name], loaded) as
    | grpc.ServiceClientConstructor
    | undefined;
  if (typeof Service !== 'function') throw new Error(`${proto} declares no service ${service}`);
  const host = /^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? new URL(address).host : address;
  const client = new Service(
    host,
    grpc.credentials.createInsecure(),
    userAgent ? { 'grpc.primary_user_agent': userAgent } : {},
  ) as grpc.Client & Record<string, Unary>;

  /** Starts one unary call and resolves with its outcome once the status (and trailers) arrived. */
  const outcome = <Reply>(
    start: (metadata: grpc.Metadata, options: grpc.CallOptions, done: Done) => grpc.ClientUnaryCall,
  ) =>
    new Promise<CallOutcome<Reply>>((resolve) => {
      const startedAt = Date.now();
      const metadata = new grpc.Metadata();
      if (token) metadata.set('authorization', `Bearer ${token}`);
      if (apiKey) metadata.set('x-api-key', apiKey);
      const ended: CallOutcome<Reply> = { code: 0, details: '', startedAt };
      const call = start(metadata, { deadline: startedAt + deadlineMs }, (error, reply) => {
        if (error) Object.assign(ended, { code: error.code, details: error.details, error });
        else ended.reply = reply as Reply;
      });
      call.on('metadata', (headers: grpc.Metadata) => {
        ended.headers = headers;
      });
      // grpc-js emits `status` right after it called back: the outcome is complete then.
      call.on('status', (status: grpc.StatusObject) => {
        ended.trailers = status.metadata;
        resolve(ended);
      });
    });
  /** Calls `method` (`GetStock` or `getStock`); never rejects: a failure is an outcome with its status code. */
  const call = <Reply = Record<string, any>>(method: string, request: object) => {
    const unary = client[method];
    if (typeof unary !== 'function') throw new Error(`${service} has no method ${method}`);
    return outcome<Reply>((metadata, options, done) => unary.call(client, request, metadata, options, done));
  };

  return {
    call,
    /** Calls `method` and resolves with its reply, or rejects with the grpc.ServiceError. */
    reply: async <Reply = Record<string, any>>(method: string, request: object): Promise<Reply> => {
      const { error, reply } = await call<Reply>(method, request);
      if (error) throw error;
      return reply as Reply;
    },
    /**
     * Sends `bytes` as the request message to `path` (`/package.Service/Method`) with no proto in between,
     * for messages the proto cannot write and methods it does not declare; the reply is the bytes sent back.
     */
    raw: (path: string, bytes: Buffer) =>
      outcome<Buffer>((metadata, options, done) =>
        client.makeUnaryRequest(
          path,
          (value: Buffer) => value,
          (value: Buffer) => value,
          bytes,
          metadata,
          options,
          done,
        ),
      ),
    /**
     * Opens a server-streaming call of `method`: the messages as they arrive, `next(n)` resolving once `n`
     * have, `ended` with the status (never rejects), and `cancel()`. No deadline unless `deadlineMs` is given;
     * `headers` are sent as metadata beside the token.
     */
    stream: <Message = Record<string, any>>(
      method: string,
      request: object,
      { deadlineMs: ms, headers = {} }: { deadlineMs?: number; headers?: Record<string, string> } = {},
    ) => {
      const open = client[method] as unknown as ServerStreaming | undefined;
      if (typeof open !== 'function') throw new Error(`${service} has no method ${method}`);
      const metadata = new grpc.Metadata();
      if (token) metadata.set('authorization', `Bearer ${token}`);
      if (apiKey) metadata.set('x-api-key', apiKey);
      for (const [name, value] of Object.entries(headers)) metadata.set(name, value);
      const call = open.call(client, request, metadata, ms === undefined ? {} : { deadline: Date.now() + ms });
      const messages: Message[] = [];
      const waiters: Array<{ count: number; resolve: () => void }> = [];
      call.on('data', (message: Message) => {
        messages.push(message);
        for (const waiter of waiters.filter(({ count }) => messages.length >= count)) waiter.resolve();
      });
      call.on('error', () => undefined); // the status below reports it
      const ended = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
      return {
        messages,
        ended,
        cancel: () => call.cancel(),
        next: (count: number) =>
          messages.length >= count
            ? Promise.resolve(messages)
            : Promise.race([
                new Promise<Message[]>((resolve) => waiters.push({ count, resolve: () => resolve(messages) })),
                ended.then((status) => {
                  throw new Error(
                    `the stream ended (${status.code} ${status.details}) after ${messages.length} messages`,
                  );
                }),
              ]),
      };
    },
    close: () => client.close(),
  };
}

/** A client made by `grpcClient`. */
export type GrpcClient = ReturnType<typeof grpcClient>;
