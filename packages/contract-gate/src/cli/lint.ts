/**
 * Lints the three contracts: the proto (buf lint, buf format), the OpenAPI document (Redocly's recommended
 * rules, configured in redocly.yaml; Spectral's OWASP API Security ruleset with its exceptions in
 * contracts/.spectral-owasp.yaml) and the GraphQL schema with the committed operation documents
 * (schema validation, then every operation validated against the schema), and the deprecations of all
 * three (each deprecated item has a real sunset date; watched ids name items; a replacement names an item
 * beside the one it replaces; an operation that can use a deprecated REST item documents `410` for its
 * brownouts). Runs every check, then
 * fails if any failed. `--root <dir>` lints another checkout; `--only deprecations` runs that check alone.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import { restMatcher } from '@order-api/contract-registry/matching';
import { buildSchema, parse, validate, validateSchema } from 'graphql';
import { parse as parseYaml } from 'yaml';
import { buildRegistry } from '../registry/build-registry.js';

const rootFlag = process.argv.indexOf('--root');
const root = rootFlag > 0 ? path.resolve(process.argv[rootFlag + 1] ?? '.') : process.cwd();
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;

function run(label: string, command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { cwd: root, stdio: 'inherit' });
    console.log(`ok   ${label}`);
    return true;
  } catch {
    console.error(`FAIL ${label}`);
    return false;
  }
}

function lintGraphql(): boolean {
  const problems: string[] = [];
  const schema = buildSchema(readFileSync(path.join(root, 'contracts/schema.graphql'), 'utf8'));
  problems.push(...validateSchema(schema).map((e) => `schema.graphql: ${e.message}`));
  const dir = path.join(root, 'contracts/operations');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.graphql'))) {
    try {
      const errors = validate(schema, parse(readFileSync(path.join(dir, file), 'utf8')));
      problems.push(...errors.map((e) => `operations/${file}: ${e.message}`));
    } catch (error) {
      problems.push(`operations/${file}: ${(error as Error).message}`);
    }
  }
  for (const problem of problems) console.error(`  ${problem}`);
  console.log(problems.length === 0 ? 'ok   graphql schema and operations' : 'FAIL graphql schema and operations');
  return problems.length === 0;
}

function lintDeprecations(): boolean {
  const { registry, problems } = buildRegistry(path.join(root, 'contracts'));
  problems.push(
    ...goneResponsesMissing(registry, parseYaml(readFileSync(path.join(root, 'contracts/openapi.yaml'), 'utf8'))),
  );
  for (const problem of problems) console.error(`  ${problem}`);
  const summary = `deprecations (${registry.items.length} items)`;
  console.log(problems.length === 0 ? `ok   ${summary}` : `FAIL ${summary}`);
  return problems.length === 0;
}

/**
 * An operation that can be refused in a brownout window documents that answer: `410` (BROWNOUT, `'410':
 * { $ref: '#/components/responses/Gone' }`) where the deprecated item is the operation itself, `400`
 * where its request can send a deprecated parameter or body member. A deprecated response property is
 * left out of the answer, which changes no status.
 */
function goneResponsesMissing(registry: DeprecationRegistry, document: Record<string, unknown>): string[] {
  const matcher = restMatcher(registry, document);
  const responses = new Map<string, Record<string, unknown>>();
  for (const pathItem of Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const operation of Object.values(pathItem) as Array<{ operationId?: string; responses?: object }>) {
      if (operation?.operationId)
        responses.set(operation.operationId, (operation.responses ?? {}) as Record<string, unknown>);
    }
  }
  return registry.items
    .filter((item) => item.protocol === 'rest' && item.status === 'deprecated')
    .flatMap((item) => {
      const status = item.match.on === 'operation' ? '410' : '400';
      return matcher
        .operationsSending(item.id)
        .filter((operationId) => !responses.get(operationId)?.[status])
        .map(
          (operationId) =>
            `openapi.yaml ${operationId}: can send the deprecated ${item.id}, so it must document '${status}' (BROWNOUT)`,
        );
    });
}

const results =
  only === 'deprecations'
    ? [lintDeprecations()]
    : [
        run('buf lint', 'buf', ['lint']),
        run('buf format', 'buf', ['format', '--diff', '--exit-code']),
        run('openapi (redocly recommended)', 'redocly', ['lint', '--format', 'stylish', 'contracts/openapi.yaml']),
        run('openapi (spectral owasp)', 'spectral', [
          'lint',
          '--quiet',
          '--ruleset',
          'contracts/.spectral-owasp.yaml',
          'contracts/openapi.yaml',
        ]),
        lintGraphql(),
        lintDeprecations(),
      ];
if (results.includes(false)) process.exit(1);
