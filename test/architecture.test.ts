import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it, onTestFinished } from 'vitest';
import { oversized, sourcesUnder } from '../scripts/code-size.js';
import { contractRuleValues, ruleLiterals } from '../scripts/rule-literals.js';

const root = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);

async function depcruise(...targets: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run('npx', ['depcruise', ...targets, '--config', '.dependency-cruiser.cjs'], {
      cwd: root,
    });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, output: failed.stdout };
  }
}

describe('architecture rules (.dependency-cruiser.cjs)', () => {
  // One depcruise run over the fixture serves the three cases that read its findings.
  let fixtureRun: ReturnType<typeof depcruise> | undefined;
  const fixture = () => {
    fixtureRun ??= depcruise('test/fixtures/architecture');
    return fixtureRun;
  };

  it('fail a core module that imports a driver, a transport or generated stubs', async () => {
    const { code, output } = await fixture();
    expect(code).not.toBe(0);
    expect(output).toMatch(/core-is-transport-and-driver-free: .*imports-a-driver\.ts → node_modules\/pg\//);
    expect(output).toMatch(/core-is-transport-and-driver-free: .*imports-a-driver\.ts → node_modules\/hono\//);
    expect(output).toMatch(/core-has-no-generated-types: .*imports-a-driver\.ts → generated\/openapi\/schema\.d\.ts/);
  });

  it('fail a type-only import from the core, REST reaching into GraphQL, and an edge helper mounting a transport', async () => {
    const { output } = await fixture();
    expect(output).toMatch(
      /core-is-transport-and-driver-free: .*imports-a-transport-type\.ts → .*src\/http\/mounts-rest\.ts/,
    );
    expect(output).toMatch(/rest-and-graphql-are-apart: .*src\/rest\/uses-graphql\.ts → .*src\/graphql\/plugin\.ts/);
    expect(output).toMatch(
      /edge-helpers-do-not-mount-transports: .*src\/http\/mounts-rest\.ts → .*src\/rest\/uses-graphql\.ts/,
    );
  });

  it('fail AsyncLocalStorage in the core, a driver in an edge helper, a transport computing VAT or counting uses', async () => {
    const { output } = await fixture();
    expect(output).toMatch(/core-passes-context-explicitly: .*src\/core\/keeps-ambient-context\.ts → async_hooks/);
    expect(output).toMatch(/edge-helpers-use-no-driver: .*src\/http\/talks-to-redis\.ts → node_modules\/ioredis\//);
    expect(output).toMatch(
      /transports-leave-money-to-the-core: .*src\/graphql\/splits-vat\.ts → .*src\/core\/shared\/money\.ts/,
    );
    expect(output).toMatch(
      /transports-leave-usage-to-the-policy: .*src\/rest\/counts-uses\.ts → .*src\/core\/lifecycle\/usage\/usage-recorder\.ts/,
    );
  });

  it('fail a handler that reads the store or opens a driver itself, and an import cycle', async () => {
    const { output } = await fixture();
    expect(output).toMatch(
      /transports-do-not-reach-storage: .*src\/grpc\/reads-the-store\.ts → .*src\/store\/orders\.ts/,
    );
    expect(output).toMatch(/transports-do-not-reach-storage: .*src\/grpc\/reads-the-store\.ts → node_modules\/pg\//);
    expect(output).toMatch(/no-circular: \S*src\/grpc\/cycle-a\.ts →\s+\S*src\/grpc\/cycle-b\.ts/);
  });

  it("fail a room of the core reaching past another room's index.ts, and allow it through the index", async () => {
    const { output } = await fixture();
    expect(output).toMatch(
      /rooms-meet-at-their-index: .*src\/core\/orders\/reaches-into-catalog\.ts → .*src\/core\/catalog\/products\.ts/,
    );
    // A sub-room of a room (lifecycle/notices) meets its siblings at their index too.
    expect(output).toMatch(
      /rooms-meet-at-their-index: .*core\/lifecycle\/notices\/reaches-a-sibling\.ts → .*core\/lifecycle\/usage\/usage-recorder\.ts/,
    );
    expect(output).not.toContain('meets-at-index.ts');
  });

  it('fail an adapter reaching another adapter or the configuration, and a transport reading the configuration', async () => {
    const { output } = await fixture();
    expect(output).toMatch(/adapters-meet-in-compose: .*src\/redis\/uses-the-store\.ts → .*src\/store\/orders\.ts/);
    expect(output).toMatch(/adapters-meet-in-compose: .*src\/mail\/reads-config\.ts → .*src\/config\.ts/);
    expect(output).toMatch(
      /transports-take-settings-from-compose: .*src\/graphql\/reads-config\.ts → .*src\/config\.ts/,
    );
  });

  it('fail a package reaching the product, the registry reaching the gate, and the core matching requests', async () => {
    const { output } = await fixture();
    expect(output).toMatch(
      /packages-stand-alone: .*packages\/contract-gate\/src\/reaches-the-product\.ts → .*src\/config\.ts/,
    );
    expect(output).toMatch(
      /registry-is-below-the-gate: .*contract-registry\/src\/reaches-the-gate\.ts → .*contract-gate\/src\/reaches-the-product\.ts/,
    );
    expect(output).toMatch(
      /core-reads-the-registry-format-only: .*src\/core\/matches-requests\.ts → .*contract-registry\/src\/matching\/rest\.ts/,
    );
  });

  it('hold for the source tree, the scripts, the workspace packages and the gate configuration', async () => {
    const { code, output } = await depcruise('src', 'scripts', 'packages', 'contract-gate.config.ts');
    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  });
});

describe('tests share their workers (vitest.config.ts: isolate false)', () => {
  // A mocked module or a changed environment would leak into the next file of the same worker.
  const leaks = /\bvi\.(mock|doMock|stubEnv|stubGlobal)\(|process\.env\.[A-Z_]+\s*=[^=]|delete process\.env/;
  const tests = (dir: string): string[] =>
    readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.startsWith('fixtures'))
      .map((file) => path.join(dir, file));

  it('the check finds a mocked module and a changed environment variable', () => {
    expect(leaks.test("vi.mock('../src/config.js')")).toBe(true);
    expect(leaks.test("process.env.DATABASE_URL = 'x'")).toBe(true);
    expect(leaks.test("process.env.CI === 'true'")).toBe(false);
  });

  it('no test file mocks a module or changes process.env', () => {
    const found = [...tests('test'), ...tests('src').filter((file) => file.endsWith('.test.ts'))]
      .filter((file) => file !== 'test/architecture.test.ts') // its own examples above
      .filter((file) => leaks.test(readFileSync(path.join(root, file), 'utf8')));
    expect(found).toEqual([]);
  });
});

describe('input rules come from the contracts (scripts/rule-literals.ts, in npm run lint)', () => {
  const values = contractRuleValues(path.join(root, 'contracts'));

  it('finds a bound compared by hand, a bound kept as a constant and a copied pattern, and nothing else', () => {
    const sample = path.join(root, 'test/fixtures/architecture/src/core/restates-rules.ts');
    expect(ruleLiterals([sample], values).map(({ line, text }) => ({ line, text }))).toEqual([
      { line: 2, text: 'NOTE_MAX_LENGTH = 500' },
      { line: 3, text: 'score <= 5' },
      { line: 4, text: 'skuPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/' },
    ]);
  });

  it('holds for the source tree', () => {
    expect(ruleLiterals(sourcesUnder(path.join(root, 'src')), values)).toEqual([]);
  });
});

describe('size rule (scripts/code-size.ts, in npm run lint)', () => {
  it('finds a file over 250 lines and a function over 80, by name and line', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'code-size-'));
    const body = Array.from({ length: 85 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    writeFileSync(path.join(folder, 'long.ts'), `export const x = 1;\nexport function long() {\n${body}\n}\n`);
    writeFileSync(
      path.join(folder, 'big.ts'),
      Array.from({ length: 251 }, (_, i) => `export const c${i} = ${i};`).join('\n'),
    );
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const found = oversized(sourcesUnder(folder)).map(({ file, what, line, lines }) => ({
      file: path.basename(file),
      what,
      line,
      lines,
    }));
    expect(found).toEqual([
      { file: 'big.ts', what: 'file', line: 1, lines: 251 },
      { file: 'long.ts', what: 'function long', line: 2, lines: 87 },
    ]);
  });

  it('holds for the source tree', () => {
    expect(oversized(sourcesUnder(path.join(root, 'src')))).toEqual([]);
  });
});

describe('answers made with answer() (src/http/edge-headers.ts)', () => {
  // A header set with Hono's c.header() before answer() would be dropped, so nothing on those paths sets one.
  const setsHeader = /\bc\.header\(\s*['"`][^'"`]+['"`]\s*,/;

  it('the check finds a header set through the context', () => {
    expect(setsHeader.test("request.c.header('Location', location);")).toBe(true);
    expect(setsHeader.test("c.header('Cache-Control', 'no-store')")).toBe(true);
    expect(setsHeader.test("request.header('if-match')")).toBe(false);
    expect(setsHeader.test("c.req.header('accept')")).toBe(false);
  });

  it('REST and the problem documents set no header through the context', () => {
    const files = [
      ...sourcesUnder(path.join(root, 'src/rest')),
      path.join(root, 'src/http/problem.ts'),
      path.join(root, 'src/http/bearer.ts'),
      path.join(root, 'src/http/rate-budget.ts'),
    ];
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.filter((file) => setsHeader.test(readFileSync(file, 'utf8')));
    expect(offenders.map((file) => path.relative(root, file))).toEqual([]);
  });
});

describe('version prefixes in URLs (src/http/version-mounts.ts, the mount table)', () => {
  // A URL path that starts with a version (`/v1/orders`, `/v2`) in a string or template literal; an import
  // path (`…/inventory/v1/…`) or a comment is not one.
  const VERSIONED_URL = /(?:^|[\s'"`(<=:])\/v[0-9]+(?=[/?#\s'"`>)]|$)/;
  const versionedUrls = (file: string, text: string): string[] => {
    const found: string[] = [];
    const visit = (node: ts.Node): void => {
      const literal =
        ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node);
      if (literal && VERSIONED_URL.test(node.text)) found.push(node.text);
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
    return found;
  };

  it('the check finds a versioned URL in a string or a template, not in an import path or a comment', () => {
    const sample = [
      "import { x } from '../../generated/proto/inventory/v1/inventory_pb.js';",
      '// GET /v1/orders',
      `const a = \`/v1/orders/\${id}\`;`,
      "const b = 'see GET /v2/products';",
      `const c = \`\${base}/orders/\${id}\`;`,
      "const d = 'contracts/inventory/v1/inventory.proto';",
    ].join('\n');
    expect(versionedUrls('sample.ts', sample)).toEqual(['/v1/orders/', 'see GET /v2/products']);
  });

  it('no URL names a version in src/: each is derived from the contract by the mount table', () => {
    const offenders = sourcesUnder(path.join(root, 'src')).flatMap((file) =>
      versionedUrls(file, readFileSync(file, 'utf8')).map((text) => `${path.relative(root, file)}: ${text}`),
    );
    expect(offenders).toEqual([]);
  });
});
