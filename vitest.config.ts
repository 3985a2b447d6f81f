import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // One copy of graphql for the code under test and graphql-yoga (two copies make instanceof GraphQLError fail, masking errors).
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // One migrated embedded database directory per run, which tests copy instead of creating their own.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file opens its own embedded database (~700 MB); two at a time fits this 2-core machine.
    maxWorkers: 2,
  },
});
