/**
 * The signed export of the request-shape record (src/core/shape-export.ts), for a contract owner without
 * access to the production database:
 *
 *   npm run shapes:export -- [--days 30] [--out shapes.json]
 *   npm run contracts:impact -- --usage shapes.json     # impact from the file instead of a database
 *
 * Every row of the last `--days` UTC days (today included), the GraphQL signatures they name and the
 * record's coverage, signed with the server's evidence key (`EVIDENCE_SIGNING_KEY`, else the key kept in
 * the database). Without `--out` it prints the JSON. In a production install: `node dist/src/cli/shape-export.js`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { EVIDENCE_WINDOW } from '../core/deprecations.js';
import { exportShapes, signShapeExport } from '../core/shape-export.js';
import { evidenceSigningKey } from '../store/evidence-key-store.js';
import { shapeStore } from '../store/shape-store.js';
import { runCommand, withDatabase } from './cli-support.js';

runCommand(async () => {
  const { values } = parseArgs({ options: { days: { type: 'string', default: '30' }, out: { type: 'string' } } });
  const days = Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > EVIDENCE_WINDOW)
    throw new Error(`--days takes a whole number, 1 to ${EVIDENCE_WINDOW}`);
  const exported = await withDatabase(async (db) =>
    signShapeExport(
      await exportShapes(shapeStore(db), days),
      await evidenceSigningKey(db, process.env.EVIDENCE_SIGNING_KEY),
    ),
  );
  const text = `${JSON.stringify(exported, null, 2)}\n`;
  if (!values.out) {
    process.stdout.write(text);
    return;
  }
  mkdirSync(path.dirname(path.resolve(values.out)), { recursive: true });
  writeFileSync(values.out, text);
  console.log(
    `${values.out}: ${exported.from} to ${exported.to}, ${exported.rows.length} rows, ` +
      `${exported.signatures.length} signatures; signed by ${exported.keyId}`,
  );
});
