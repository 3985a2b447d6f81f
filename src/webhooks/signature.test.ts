import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signatureHeader } from './signature.js';

const current = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const previous = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const body = JSON.stringify({ id: 'evt_1', type: 'order.created', data: { object: { id: 7, note: 'ünïcode' } } });
const at = new Date('2026-11-26T10:00:00Z');

describe('webhook signature', () => {
  it('is the standardwebhooks package’s own, under each secret, and verifies with it', () => {
    const seconds = Math.floor(at.getTime() / 1000);
    expect(signatureHeader([current], 'evt_1', seconds, body)).toBe(new Webhook(current).sign('evt_1', at, body));
    const both = signatureHeader([current, previous], 'evt_1', seconds, body);
    expect(both).toBe(
      `${new Webhook(current).sign('evt_1', at, body)} ${new Webhook(previous).sign('evt_1', at, body)}`,
    );
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(seconds), 'webhook-signature': both };
    const now = Date.now;
    Date.now = () => at.getTime();
    try {
      expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
    } finally {
      Date.now = now;
    }
  });
});
