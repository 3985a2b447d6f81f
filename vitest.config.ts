import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

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
  'test/contracts/{breaking-corpus,breaking,changelog,deprecation-lint,deprecation-registry,error-codes}.test.ts',
  // Impact analysis over an embedded database of its own, whatever the run, or over a record in memory.
  'test/contracts/{impact,shape-callers}.test.ts',
  'test/contracts/{generated,named-items,openapi-document,owasp-lint,proto-revisions,release-history}.test.ts',
  'test/contracts/{scopes,versioning}.test.ts',
];

export default defineConfig({
  resolve: {
    // One copy of graphql for the code under test and graphql-yoga (two copies make instanceof GraphQLError fail, masking errors).
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    ...(process.env.TEST_DATABASE_ONLY === 'true' ? { exclude: [...configDefaults.exclude, ...databaseFree] } : {}),
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
