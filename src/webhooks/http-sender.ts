/**
 * One delivery attempt over HTTP(S): signed per Standard Webhooks, to an address checked against the SSRF
 * rules on this very attempt (the connection goes to the checked address, not to a second resolution),
 * bounded in time (`WEBHOOK_TIMEOUT_MS`, 10 s by default) and in what is read of the answer. Connections
 * are kept alive per origin and checked address (./agents.ts), so that a busy endpoint is not paid a TCP
 * (and TLS) handshake per delivery.
 */
import { lookup } from 'node:dns/promises';
import { type ClientRequest, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AttemptResult } from '../core/events/webhook-delivery.js';
import { checkWebhookTarget, type ResolveHost } from '../core/events/webhook-targets.js';
import { createAgents, pinnedLookup } from './agents.js';
import { signatureHeader } from './signature.js';

/** How long a receiver has to answer, unless the caller says otherwise. */
const TIMEOUT_MS = 10_000;
/** At most this much of an answer is read (for the log); the rest is dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** A kept connection the receiver closed just as it was reused fails with one of these, before any answer. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

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

/** Creates the sender: a function per attempt, with `close` to drop the connections it keeps. */
export function createWebhookSender({
  allowPrivate,
  resolve = resolveHost,
  timeoutMs = TIMEOUT_MS,
}: {
  allowPrivate: boolean;
  resolve?: ResolveHost;
  timeoutMs?: number;
}) {
  const agents = createAgents();

  async function sendWebhook(message: WebhookMessage): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let addresses: string[];
    try {
      addresses = await checkWebhookTarget(message.url, allowPrivate, resolve);
    } catch (error) {
      return { status: null, durationMs: elapsed(), error: `refused target: ${(error as Error).message}` };
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const pinned = addresses[0] as string;
    const url = new URL(message.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = {
      ...message.headers,
      'content-type': 'application/json',
      'user-agent': 'order-api-webhooks/1',
      'webhook-id': message.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(message.secrets, message.id, timestamp, message.body),
    };
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const done = (status: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve({ status, durationMs: elapsed(), error });
      };
      let current: ClientRequest;
      const attempt = (retried: boolean) => {
        let answered = false;
        const request = send(
          url,
          { method: 'POST', agent: agents.of(url, pinned), lookup: pinnedLookup(pinned), headers },
          (response) => {
            answered = true;
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
        current = request;
        request.on('error', (error: NodeJS.ErrnoException) => {
          // Once more, on a new connection: the receiver closed the kept one as it was reused (at least once).
          const stale = request.reusedSocket && !answered && STALE_CONNECTION.has(error.code ?? '');
          if (stale && !retried && !settled) attempt(true);
          else done(null, error.message);
        });
        request.end(message.body);
      };
      const deadline = setTimeout(
        () => current.destroy(new Error(`no answer within ${timeoutMs} ms`)),
        Math.max(0, timeoutMs - elapsed()),
      );
      attempt(false);
    });
  }

  return Object.assign(sendWebhook, { close: () => agents.close() });
}
