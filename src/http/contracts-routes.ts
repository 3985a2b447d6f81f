import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Hono } from 'hono';
import { etag } from 'hono/etag';
import Negotiator from 'negotiator';
import { catalogProblem } from './problem.js';

/** Where the contracts live on disk; the composition root passes the project root. */
export interface ContractsRoutesOptions {
  projectRoot: string;
}

interface Published {
  /** Media type -> body, first entry is the default for `Accept: *\/*`. */
  representations: Array<[string, string]>;
}

async function loadPublished(projectRoot: string): Promise<Map<string, Published>> {
  const read = (file: string) => readFile(path.join(projectRoot, file), 'utf8');
  const [openapiJson, openapiYaml, schema, proto, changelog] = await Promise.all([
    read('generated/contracts/openapi.json'),
    read('contracts/openapi.yaml'),
    read('contracts/schema.graphql'),
    read('contracts/inventory/v1/inventory.proto'),
    read('contracts/CHANGELOG.md'),
  ]);
  // A Map, not an object: a name such as `constructor` or `__proto__` must not find Object.prototype.
  return new Map<string, Published>([
    [
      'openapi',
      {
        representations: [
          ['application/json', openapiJson],
          ['application/yaml', openapiYaml],
          ['application/openapi+yaml', openapiYaml],
          ['text/yaml', openapiYaml],
        ],
      },
    ],
    ['graphql', { representations: [['text/plain', schema]] }],
    ['inventory', { representations: [['text/plain', proto]] }],
    // What changed in which release, for client teams (Keep a Changelog; checked by the release gate).
    [
      'changelog',
      {
        representations: [
          ['text/markdown', changelog],
          ['text/plain', changelog],
        ],
      },
    ],
  ]);
}

/**
 * Publishes the contracts without file extensions in their URLs (docs/decisions.md §3); the `Accept` header
 * chooses the representation: `/contracts/openapi` is JSON by default and YAML on request;
 * `/contracts/changelog` is the contracts' changelog as Markdown.
 */
export async function contractsRoutes({ projectRoot }: ContractsRoutesOptions): Promise<Hono> {
  const published = await loadPublished(projectRoot);
  const app = new Hono();
  app.use('*', etag());
  app.get('/:name', (c) => {
    const contract = published.get(c.req.param('name'));
    if (!contract) {
      return catalogProblem(c, 'NOT_FOUND', 'No such contract.');
    }
    const types = contract.representations.map(([type]) => type);
    const accept = c.req.header('accept') ?? '*/*';
    const chosen = new Negotiator({ headers: { accept } }).mediaType(types);
    const representation = contract.representations.find(([type]) => type === chosen);
    if (!representation) {
      return catalogProblem(c, 'NOT_ACCEPTABLE', `This contract is available as: ${types.join(', ')}.`);
    }
    const [type, body] = representation;
    c.header('Vary', 'Accept');
    c.header('Cache-Control', 'public, max-age=300');
    return c.body(body, 200, { 'content-type': `${type}; charset=utf-8` });
  });
  return app;
}
