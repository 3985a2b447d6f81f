/**
 * Mutation testing of the core's rule files: `npm run mutation` (about 12 minutes on two cores; a manual or
 * nightly command, not a CI step). Each file's score is recorded in docs/testing.md ("Mutation scores").
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    'src/core/shared/money.ts',
    'src/core/shared/decimal-amounts.ts',
    'src/core/shared/order-state.ts',
    'src/core/orders/order-lines.ts',
    'src/core/orders/order-placement.ts',
    'src/core/orders/order-changes.ts',
    'src/core/idempotency/idempotency.ts',
    'src/core/lifecycle/deprecation-policy.ts',
    'src/core/keys/key-rules.ts',
  ],
  coverageAnalysis: 'perTest',
  // Mutants of module-level values (a constant's initialiser) would rerun every test for each; they are left out.
  ignoreStatic: true,
  concurrency: 2,
  timeoutMS: 30_000,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
