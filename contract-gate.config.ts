/**
 * What the contract gate (packages/contract-gate) needs from the Order API beyond its contract files: the
 * members that are one core input in two contracts (scripts/contract-twins.ts), and the live record of who
 * called what — the request-shape record and the deprecation usage in the server's database
 * (`DATABASE_URL` and `DATABASE_SCHEMA`, or the embedded database in `DATA_DIR`, default ./data).
 */
import { existsSync } from 'node:fs';
import type { GateProject } from '@order-api/contract-gate';
import { TWINS } from './scripts/contract-twins.js';
import { withDatabase } from './src/cli/cli-support.js';
import { callerReports, stillUsing } from './src/core/lifecycle/usage/deprecation-callers.js';
import { shapeStore } from './src/store/shape-store.js';
import { usageStore } from './src/store/usage-store.js';

export default {
  twins: TWINS,
  records: {
    named: () => Boolean(process.env.DATABASE_URL),
    present: () => Boolean(process.env.DATABASE_URL) || existsSync(process.env.DATA_DIR ?? './data'),
    open: (use) =>
      withDatabase((db) => {
        const usage = usageStore(db);
        return use({
          shapes: shapeStore(db),
          // Folded as the usage report folds them.
          async callers(ids, sinceDay) {
            const rows = (await Promise.all(ids.map((id) => usage.callers(id, sinceDay)))).flat();
            return stillUsing(callerReports(rows, []));
          },
        });
      }),
  },
} satisfies GateProject;
