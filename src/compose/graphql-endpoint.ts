import type { HttpBindings } from '@hono/node-server';
import type { Handler } from 'hono';
import type { createGraphQL } from '../graphql/create-graphql.js';
import type { RateExchange } from '../graphql/use-rate-budget.js';
import { answer } from '../http/edge-headers.js';
import type { GraphiqlPage } from '../http/graphiql-page.js';
import { catalogProblem } from '../http/problem.js';
import { clientAddressOf } from '../http/rate-budget.js';
import { clientOf } from '../observability/metrics.js';

/** Hands a request to Yoga (on the Node request and response when served by Node) and returns its answer. */
export function graphqlEndpoint(
  yoga: Awaited<ReturnType<typeof createGraphQL>>,
  withRateBudget: boolean,
  graphiql: GraphiqlPage | undefined,
): Handler {
  return async (c) => {
    // A browser's visit (as Yoga tells one): the static page, never charged and never rendered per request.
    if (c.req.method === 'GET' && c.req.header('accept')?.includes('text/html')) {
      if (graphiql) return graphiql.page(c);
      if (c.req.query('query') === undefined) {
        return catalogProblem(
          c,
          'NOT_FOUND',
          'GraphiQL is turned off on this server (GRAPHIQL=false): send queries to /graphql.',
        );
      }
    }
    const clientName = clientOf(c.req.header('user-agent'));
    const rateExchange: RateExchange | undefined = withRateBudget ? { clientAddress: clientAddressOf(c) } : undefined;
    const traceId = c.get('traceId');
    const context = { clientName, ...(rateExchange ? { rateExchange } : {}), ...(traceId ? { traceId } : {}) };
    const node = c.env as Partial<HttpBindings> | undefined;
    const response =
      node?.incoming && node.outgoing
        ? await yoga.handleNodeRequestAndResponse(node.incoming, node.outgoing, context)
        : await yoga.fetch(c.req.raw, context);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    Object.assign(headers, rateExchange?.headers);
    // A subscription's event stream is passed through as it comes (reading it whole would hold every event
    // until the stream ends).
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      return new Response(response.body, { status: response.status, headers });
    }
    return answer(c, await response.text(), response.status, headers);
  };
}
