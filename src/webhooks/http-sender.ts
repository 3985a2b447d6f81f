/**
 * One delivery attempt over HTTP(S): signed per Standard Webhooks, to an address checked against the SSRF
 * rules on this very attempt (the connection goes to the checked address, not to a second resolution),
 * bounded in time (`WEBHOOK_TIMEOUT_MS`, 10 s by default) and in what is read of the answer.
 */
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { AttemptResult } from '../core/webhook-delivery.js';
import { checkWebhookTarget, type ResolveHost } from '../core/webhook-targets.js';

/** How long a receiver has to answer, unless the caller says otherwise. */
const TIMEOUT_MS = 10_000;
/** At most this much of an answer is read (for the log); the rest is dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** What an attempt sends. */
export interface WebhookMessage {
  url: string;
  id: string;
  secrets: readonly string[];
  body: string;
  /** More headers (the deprecation signals); they cannot replace the ones below. */
  headers?: Record<string, string>;
}

/** Resolves a host with the system resolver, every address. */
export const resolveHost: ResolveHost = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/** Creates the sender. */
export function createWebhookSender({
  allowPrivate,
  resolve = resolveHost,
  timeoutMs = TIMEOUT_MS,
}: {
  allowPrivate: boolean;
  resolve?: ResolveHost;
  timeoutMs?: number;
}) {
  return async function sendWebhook(message: WebhookMessage): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let addresses: string[];
    try {
      addresses = await checkWebhookTarget(message.url, allowPrivate, resolve);
    } catch (error) {
      return { status: null, durationMs: elapsed(), error: `refused target: ${(error as Error).message}` };
    }
    const timestamp = new Date();
    const signature = message.secrets
      .map((secret) => new Webhook(secret).sign(message.id, timestamp, message.body))
      .join(' ');
    const pinned = addresses[0] as string;
    const pin: LookupFunction = (_host, options, callback) => {
      const family = isIP(pinned);
      if ((options as { all?: boolean }).all) callback(null, [{ address: pinned, family }]);
      else callback(null, pinned, family);
    };
    const url = new URL(message.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<AttemptResult>((resolve) => {
      const done = (status: number | null, error: string | null) => resolve({ status, durationMs: elapsed(), error });
      const request = send(
        url,
        {
          method: 'POST',
          lookup: pin,
          timeout: timeoutMs,
          headers: {
            ...message.headers,
            'content-type': 'application/json',
            'user-agent': 'order-api-webhooks/1',
            'webhook-id': message.id,
            'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
            'webhook-signature': signature,
          },
        },
        (response) => {
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BYTES) response.destroy();
          });
          const status = response.statusCode ?? null;
          const ok = status !== null && status >= 200 && status < 300;
          const finish = () => done(status, ok ? null : `answered ${status}`);
          response.on('end', finish);
          response.on('close', finish);
        },
      );
      const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      request.on('error', (error) => done(null, error.message));
      request.on('close', () => clearTimeout(deadline));
      request.end(message.body);
    });
  };
}
