import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('configuration', () => {
  // The internal port reaches every product's stock; beyond loopback it needs its token.
  it('refuses a non-loopback GRPC_HOST without INTERNAL_TOKEN, unless the operator allows it explicitly', () => {
    expect(() => loadConfig({ GRPC_HOST: '0.0.0.0' })).toThrow(/INTERNAL_TOKEN: GRPC_HOST 0\.0\.0\.0 is not loopback/);
    expect(loadConfig({ GRPC_HOST: '0.0.0.0', INTERNAL_TOKEN: 'internal-token-0123456789' }).GRPC_HOST).toBe('0.0.0.0');
    expect(loadConfig({ GRPC_HOST: '10.0.0.5', GRPC_ALLOW_UNAUTHENTICATED: 'true' }).GRPC_ALLOW_UNAUTHENTICATED).toBe(
      true,
    );
    for (const host of ['127.0.0.1', '::1', 'localhost']) expect(loadConfig({ GRPC_HOST: host }).GRPC_HOST).toBe(host);
  });

  it('reads TRUSTED_HOSTS as a list, loopback names by default', () => {
    expect(loadConfig({}).TRUSTED_HOSTS).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(loadConfig({ TRUSTED_HOSTS: 'API.example.com,10.0.0.5' }).TRUSTED_HOSTS).toEqual([
      'api.example.com',
      '10.0.0.5',
    ]);
    expect(() => loadConfig({ TRUSTED_HOSTS: 'a, b' })).toThrow(/TRUSTED_HOSTS/);
  });
});
