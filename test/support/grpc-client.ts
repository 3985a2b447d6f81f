import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const root = path.resolve(import.meta.dirname, '../..');

type Unary = (
  request: object,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, reply: unknown) => void,
) => void;

/** What a unary call ended with: the status code (0 = OK), its message and the reply. */
export interface CallOutcome {
  code: number;
  details: string;
  reply?: Record<string, any>;
  startedAt: number;
}

/** An independent @grpc/grpc-js client of `inventory.v1.Inventory`, loaded from the published proto. */
export function grpcInventory(url: string) {
  const definition = protoLoader.loadSync('inventory/v1/inventory.proto', {
    includeDirs: [path.join(root, 'contracts')],
    enums: String,
    longs: Number,
    defaults: true,
  });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    inventory: { v1: { Inventory: grpc.ServiceClientConstructor } };
  };
  const client = new loaded.inventory.v1.Inventory(
    new URL(url).host,
    grpc.credentials.createInsecure(),
  ) as unknown as grpc.Client & Record<string, Unary>;
  /** Calls `method`; never rejects: a failure is an outcome with its status code. */
  const call = (method: string, request: object, deadlineMs = 5000): Promise<CallOutcome> =>
    new Promise((resolve) => {
      const startedAt = Date.now();
      (client[method] as Unary).call(
        client,
        request,
        new grpc.Metadata(),
        { deadline: Date.now() + deadlineMs },
        (error, reply) =>
          resolve(
            error
              ? { code: error.code, details: error.details, startedAt }
              : { code: 0, details: '', reply: reply as Record<string, any>, startedAt },
          ),
      );
    });
  return { call, close: () => client.close() };
}
