import { defineConfig } from 'vitest/config';
import { aliases } from './vitest.config.js';

/**
 * The tests Stryker runs against each mutant of the core's rule files (stryker.config.mjs): the core's unit
 * tests beside the code and the core tests over an embedded database. `npm run mutation`; not a CI step.
 * The settings are vitest.config.ts's (one graphql, the migrated database template, two workers).
 */
export default defineConfig({
  resolve: { alias: aliases },
  test: {
    include: ['src/core/**/*.test.ts', 'test/core/*.test.ts'],
    exclude: ['test/core/one-door.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    isolate: false,
  },
});
