/**
 * The signed export of the request-shape record (src/core/lifecycle/shapes/shape-export.ts), for a contract owner without
 * access to the production database:
 *
 *   npm run shapes:export -- [--days 30] [--out shapes.json]
 *   npm run contracts:impact -- --usage shapes.json     # impact from the file instead of a database
 *
 * Every row of the last `--days` UTC days (today included), the GraphQL signatures they name and the
 * record's coverage, signed with the server's evidence key (`EVIDENCE_SIGNING_KEY`, else the key kept in
 * the database). Without `--out` it prints the JSON. In a production install: `node dist/src/cli/shape-export.js`.
 */
import { parseArgs } from 'node:util';
import { exportShapes, signShapeExport } from '../core/lifecycle/shapes/shape-export.js';
import { evidenceSigningKey } from '../store/evidence-key-store.js';
import { shapeStore } from '../store/shape-store.js';
import { runCommand, windowDays, withDatabase, writeJsonOut } from './cli-support.js';

runCommand(async () => {
  const { values } = parseArgs({ options: { days: { type: 'string', default: '30' }, out: { type: 'string' } } });
  const days = windowDays(values.days);
  const exported = await withDatabase(async (db) =>
    signShapeExport(
      await exportShapes(shapeStore(db), days),
      await evidenceSigningKey(db, process.env.EVIDENCE_SIGNING_KEY),
    ),
  );
  writeJsonOut(
    values.out,
    exported,
    `${exported.from} to ${exported.to}, ${exported.rows.length} rows, ` +
      `${exported.signatures.length} signatures; signed by ${exported.keyId}`,
  );
});
