import createClient from 'openapi-fetch';
import type { paths } from '../../generated/openapi/schema.js';
import { expectContract, see } from './contract.js';

/**
 * The typed client generated from the contract (openapi-fetch over openapi-typescript's types), as a
 * partner's SDK would be. Every response it receives is checked against contracts/openapi.yaml.
 */
export function contractClient(baseUrl: string, apiKey?: string) {
  return createClient<paths>({
    baseUrl,
    ...(apiKey ? { headers: { authorization: `Bearer ${apiKey}` } } : {}),
    async fetch(request: Request) {
      // The body as sent: a search's `fields` makes its answer partial.
      const sent = request.body ? await request.clone().text() : undefined;
      const response = await fetch(request);
      const copy = response.clone();
      await expectContract(request.method, request.url, await see(copy), undefined, sent);
      return response;
    },
  });
}

/**
 * openapi-fetch exactly as a partner would set it up (its default serializers, nothing checked), with the
 * URLs it sends recorded in `sent`.
 */
export function recordingClient(baseUrl: string, apiKey: string) {
  const sent: string[] = [];
  const client = createClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${apiKey}` },
    fetch: (request: Request) => {
      sent.push(request.url);
      return fetch(request);
    },
  });
  return { client, sent };
}

/** The problem document of a failed call, typed loosely for assertions. */
export interface ProblemBody {
  code: string;
  status: number;
  errors?: Array<{ in: string; name: string; message: string }>;
}
