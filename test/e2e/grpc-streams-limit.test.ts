import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.js';
import { GRPC_HOSTS } from '../support/grpc-hosts.js';
import { startTestServer } from '../support/server.js';

/** The SETTINGS_MAX_CONCURRENT_STREAMS the internal port announces to a new HTTP/2 connection. */
async function announcedLimit(grpcUrl: string): Promise<number | undefined> {
  const session = http2.connect(grpcUrl);
  try {
    await new Promise<void>((resolve, reject) => {
      session.once('remoteSettings', () => resolve());
      session.once('error', reject);
    });
    return session.remoteSettings.maxConcurrentStreams;
  } finally {
    session.close();
  }
}

// One HTTP/2 connection may hold at most GRPC_MAX_CONCURRENT_STREAMS calls at once, on both hosts: a client
// opening more waits or opens another connection (one connection held 1,000 WatchStock streams before).
describe.each(GRPC_HOSTS)('the internal port on the %s host', (host) => {
  let server: RunningServer;
  let configured: RunningServer;
  beforeAll(async () => {
    [server, configured] = await Promise.all([
      startTestServer({ GRPC_SERVER: host, SEED_DEMO: 'false' }),
      startTestServer({ GRPC_SERVER: host, SEED_DEMO: 'false', GRPC_MAX_CONCURRENT_STREAMS: '7' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([server?.close(), configured?.close()]);
  });

  it('announces 100 concurrent streams per connection, or GRPC_MAX_CONCURRENT_STREAMS', async () => {
    expect(await announcedLimit(server.grpcUrl)).toBe(100);
    expect(await announcedLimit(configured.grpcUrl)).toBe(7);
  });
});
