import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { LoadTarget } from './load.js';

/** `count` distinct free loopback ports. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, async () => {
      const server = net.createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }),
  );
  const found = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return found;
}

/** A customer and two products (one for orders, one for gRPC Reserve), created through `httpUrl`. */
export async function prepareTarget(httpUrl: string, grpcUrl: string, key: string): Promise<LoadTarget> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const post = async (resource: string, body: unknown) => {
    const answer = await fetch(`${httpUrl}${resource}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (answer.status !== 201) throw new Error(`${resource} answered ${answer.status}: ${await answer.text()}`);
    return (await answer.json()) as { id: number; sku: string };
  };
  const suffix = randomBytes(3).toString('hex');
  const user = await post('/v1/users', {
    name: 'Scale Customer',
    email: `scale-${suffix}@example.com`,
    address: { zipCode: '04524', line1: '1 Scale Street' },
  });
  const product = await post('/v1/products', {
    name: 'Scale Bean',
    sku: `SCALE-${suffix}`,
    price: 10,
    stock: 1_000_000,
  });
  const reserved = await post('/v1/products', { name: 'Scale Cup', sku: `CUP-${suffix}`, price: 5, stock: 1000 });
  return {
    httpUrl,
    grpcUrl,
    adminKey: key,
    userId: user.id,
    productId: product.id,
    orderSku: product.sku,
    reserveSku: reserved.sku,
  };
}
