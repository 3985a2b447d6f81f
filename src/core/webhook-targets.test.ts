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

  it('takes http only on loopback, and only when private targets are allowed', async () => {
    await expect(checkWebhookTarget('http://127.0.0.1:9/h', false, resolvesTo())).rejects.toThrow(/https/);
    await expect(checkWebhookTarget('http://127.0.0.1:9/h', true, resolvesTo())).resolves.toEqual(['127.0.0.1']);
    await expect(checkWebhookTarget('http://hooks.example.com/h', true, resolvesTo('93.184.215.14'))).rejects.toThrow(
      /loopback/,
    );
  });
});
