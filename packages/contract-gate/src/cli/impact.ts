/**
 * Impact analysis: what the working contracts would break against the released ones, and who.
 *
 *   npm run contracts:impact                         # against the last release in git history (as the gate
 *                                                    # reads it), callers of the last 30 days
 *   npm run contracts:impact -- --days 90 --json     # JSON instead of the table
 *   npm run contracts:impact -- --base <dir> --head <dir> --offline
 *   npm run contracts:impact -- --usage shapes.json         # from a signed export (npm run shapes:export),
 *                                                           # checked against the base's evidence-key.pem
 *                                                           # (or --evidence-key <pem>)
 *
 * For every item removed or changed incompatibly (../impact/analyze.ts), and every proto field, rpc or
 * enum value removed (`reserved` or not): the REST operations, the persisted GraphQL operations that stop
 * validating, the gRPC methods, and the callers who would break: from the request-shape record (what each
 * caller really sent) and from the deprecation usage, with how much of the window was measured. Read from
 * the project's live record (`records` in contract-gate.config.ts; the Order API's is its database:
 * `DATABASE_URL`, or the embedded one in `DATA_DIR` when that directory exists); `--offline` reads none,
 * and then no item is measured.
 *
 * Exit codes: 0 nobody seen in the window would break, 1 a caller seen in the window would break,
 * 2 the contracts or the database could not be read.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { daysBefore } from '@order-api/contract-registry';
import { type GitReleaseHistory, readReleaseHistory } from '../breaking/git-history.js';
import { analyzeImpact, type CallerSource, type ShapeSource } from '../impact/analyze.js';
import { impactTable, impactVerdict } from '../impact/impact-table.js';
import { readShapeExport } from '../impact/shape-callers.js';
import { type LiveRecord, loadProject } from '../project.js';

// The project at the current directory (npm runs a project's scripts there).
const root = process.cwd();
const project = await loadProject(root);
const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string' },
    days: { type: 'string', default: '30' },
    json: { type: 'boolean', default: false },
    offline: { type: 'boolean', default: false },
    usage: { type: 'string' },
    'evidence-key': { type: 'string' },
  },
});

/** The callers of registry ids in the last `days` days, from the project's deprecation usage. */
function callersFrom(record: LiveRecord, days: number): CallerSource {
  return (ids) => record.callers(ids, daysBefore(new Date(), days - 1));
}

async function main(): Promise<number> {
  const days = Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > 366) {
    console.error('--days takes a whole number, 1 to 366');
    return 2;
  }
  let history: GitReleaseHistory | undefined;
  let baseDir: string;
  try {
    history = values.base ? undefined : readReleaseHistory({ root });
    baseDir = history ? history.base.dir() : path.resolve(values.base as string);
  } catch (error) {
    console.error(`LOAD FAILURE: ${(error as Error).message}`);
    return 2;
  }
  const headDir = path.resolve(values.head ?? path.join(root, 'contracts'));
  const records = !values.offline && !values.usage && project.records?.present() ? project.records : undefined;
  const useDatabase = records !== undefined;
  const measured = useDatabase || Boolean(values.usage);
  try {
    const analyze = (callers: CallerSource, shapes: ShapeSource | null) =>
      analyzeImpact({ root, baseDir, headDir, callers, shapes });
    const sinceDay = daysBefore(new Date(), days - 1);
    const { impacts, unattributedOperations } = values.usage
      ? await analyze(null, { reader: readShapeExport(values.usage, baseDir, values['evidence-key']), sinceDay, days })
      : useDatabase
        ? await (records as NonNullable<typeof records>).open((record) =>
            analyze(callersFrom(record, days), { reader: record.shapes, sinceDay, days }),
          )
        : await analyze(null, null);
    const breaking = impacts.filter((impact) => (impact.callers ?? []).length > 0);
    if (values.json) {
      console.log(JSON.stringify({ days, measured, impacts, unattributedOperations }, null, 2));
    } else {
      console.log(impactTable(impacts, unattributedOperations, measured, days));
      console.log(`\n${impactVerdict(impacts, measured, days)}`);
    }
    return breaking.length > 0 ? 1 : 0;
  } catch (error) {
    console.error(`LOAD FAILURE: ${(error as Error).message}`);
    return 2;
  } finally {
    history?.dispose();
  }
}

process.exitCode = await main();
