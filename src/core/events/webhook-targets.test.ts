import { describe, expect, it } from 'vitest';
import { checkWebhookTarget } from './webhook-targets.js';

const resolvesTo =
  (...addresses: string[]) =>
  async () =>
    addresses;

describe('webhook targets (SSRF)', () => {
  it('refuses private, loopback and link-local addresses, literal or resolved, unless allowed', async () => {
    for (const url of [
      'https://10.1.2.3/h',
      'https://[::1]/h',
      'https://169.254.169.254/latest',
      'https://[::ffff:127.0.0.1]/',
    ]) {
      await expect(checkWebhookTarget(url, false, resolvesTo())).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    await expect(checkWebhookTarget('https://hooks.example.com/h', false, resolvesTo('127.0.0.1'))).rejects.toThrow(
      /internal address/,
    );
    await expect(
      checkWebhookTarget('https://hooks.example.com/h', false, resolvesTo('93.184.215.14')),
    ).resolves.toEqual(['93.184.215.14']);
    await expect(checkWebhookTarget('https://10.1.2.3/h', true, resolvesTo())).resolves.toEqual(['10.1.2.3']);
  });

  // An IPv4 address carried inside an IPv6 one reaches that IPv4 address.
  it.each([
    ['NAT64', 'https://[64:ff9b::7f00:1]/'],
    ['NAT64, dotted', 'https://[64:ff9b::10.0.0.1]/'],
    ['6to4', 'https://[2002:7f00:1::]/'],
    ['Teredo client', 'https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/'],
    ['site-local', 'https://[fec0::1]/'],
    ['IPv4-compatible', 'https://[::127.0.0.1]/'],
    ['IPv4-mapped in hex', 'https://[::ffff:a00:1]/'],
    ['local-use NAT64', 'https://[64:ff9b:1::808:808]/'],
  ])('refuses an internal address carried in IPv6: %s', async (_, url) => {
    await expect(checkWebhookTarget(url, false, resolvesTo())).rejects.toThrow(/internal address/);
  });

  it('takes a public IPv4 address carried in IPv6, and a public IPv6 address', async () => {
    for (const address of ['64:ff9b::808:808', '2002:808:808::1', '2606:4700:4700::1111']) {
      await expect(checkWebhookTarget('https://hooks.example.com/h', false, resolvesTo(address))).resolves.toEqual([
        address,
      ]);
    }
  });

  it('takes http only on loopback, and only when private targets are allowed', async () => {
    await expect(checkWebhookTarget('http://127.0.0.1:9/h', false, resolvesTo())).rejects.toThrow(/https/);
    await expect(checkWebhookTarget('http://127.0.0.1:9/h', true, resolvesTo())).resolves.toEqual(['127.0.0.1']);
    await expect(checkWebhookTarget('http://hooks.example.com/h', true, resolvesTo('93.184.215.14'))).rejects.toThrow(
      /loopback/,
    );
  });
});
