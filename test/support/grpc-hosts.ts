import type { ServiceImpl } from '@connectrpc/connect';
import { Inventory } from '../../generated/proto/inventory/v1/inventory_pb.js';
import { createGrpcServer } from '../../src/grpc/create-grpc-server.js';
import { createGrpcJsServer } from '../../src/grpc/grpc-js-server.js';

/** The libraries the internal port can be served with (`GRPC_SERVER`): every gRPC test runs on each. */
export const GRPC_HOSTS = ['connect', 'grpc-js'] as const;

/** One of `GRPC_HOSTS`. */
export type GrpcHost = (typeof GRPC_HOSTS)[number];

/** Serves an Inventory implementation alone on `host`, as the internal port would, on a free loopback port. */
export async function serveInventory(host: GrpcHost, implementation: ServiceImpl<typeof Inventory>) {
  const server =
    host === 'grpc-js'
      ? createGrpcJsServer({ services: [{ service: Inventory, implementation }] })
      : createGrpcServer({ routes: (router) => router.service(Inventory, implementation) });
  const { port } = await server.listen(0, '127.0.0.1');
  return { port, close: () => server.close() };
}
