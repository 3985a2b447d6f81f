import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);
const fromRoot = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/**
 * The slow files that open no test database (the contract checks, which run buf, graphql-inspector and
 * git; the deploy files; the production start on an embedded database of its own) and the browser tests
 * (pages over the same REST answers): they prove the same thing on every run, so a second run on a
 * PostgreSQL server may leave them out with `TEST_DATABASE_ONLY=true` (CI's second run does;
 * docs/testing.md). The quick unit tests run every time, on each Node line.
 */
const databaseFree = [
  'test/browser/*.test.ts',
  'test/core/one-door.test.ts',
  'test/production/{deploy-files,npm-start}.test.ts',
  'test/contracts/{breaking,changelog,deprecation-lint,error-codes,event-item-index}.test.ts',
  // The workspace packages' own tests (the gate's corpus, named items, registry builder; the matchers).
  'packages/*/{src,test}/**/*.test.ts',
  // Impact analysis over an embedded database of its own, whatever the run, or over a record in memory.
  'test/contracts/{impact,shape-callers}.test.ts',
  'test/contracts/{generated,openapi-document,owasp-lint,proto-revisions,release-history}.test.ts',
  'test/contracts/{scopes,versioning}.test.ts',
];

/**
 * The long proofs that spawn servers and wait on real time (kill -9 rounds, drains, webhook deliveries
 * across restarts, rate budgets over two instances, the usage evidence across a kill): CI's embedded run
 * leaves them out with `TEST_LONG_PROOFS=false`, because its PostgreSQL run proves them, on the database
 * production runs. A plain `npm test` runs them on whichever database it has (docs/testing.md).
 */
const longProofs = [
  'test/e2e/{crash,usage-crash,shutdown}.test.ts',
  'test/e2e/{event-delivery-proofs,rate-budget}.test.ts',
];

/**
 * One copy of graphql for the code under test and graphql-yoga (two copies make instanceof GraphQLError
 * fail, masking errors); the workspace packages from their sources, as tsconfig.json's `paths` maps them
 * for tsc and tsx (a production build reads their compiled dist/ instead).
 */
export const aliases = [
  { find: /^graphql$/, replacement: require.resolve('graphql') },
  { find: /^@order-api\/contract-registry$/, replacement: fromRoot('packages/contract-registry/src/index.ts') },
  {
    find: /^@order-api\/contract-registry\/matching$/,
    replacement: fromRoot('packages/contract-registry/src/matching/index.ts'),
  },
  {
    find: /^@order-api\/contract-registry\/testing$/,
    replacement: fromRoot('packages/contract-registry/src/testing.ts'),
  },
  { find: /^@order-api\/contract-gate$/, replacement: fromRoot('packages/contract-gate/src/index.ts') },
];

export default defineConfig({
  resolve: { alias: aliases },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      ...(process.env.TEST_DATABASE_ONLY === 'true' ? databaseFree : []),
      ...(process.env.TEST_LONG_PROOFS === 'false' ? longProofs : []),
    ],
    // One migrated embedded database directory per run, which tests copy instead of creating their own.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file opens its own embedded database (~700 MB); two at a time fits this 2-core machine.
    maxWorkers: 2,
    // A worker keeps its loaded modules from one file to the next instead of importing the app again for
    // each (about a third of the suite's CPU). Safe because no test mocks a module or changes process.env,
    // and every server, registry and database a test uses is its own instance.
    isolate: false,
  },
});
