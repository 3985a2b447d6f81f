/** The impact report as a table: each impacted item, what it breaks, who, and how well that was measured. */
import type { Impact } from './analyze.js';

/** The callers an impact names, or why it names none. */
function callerLines(impact: Impact, measured: boolean, days: number): string[] {
  if (!measured) return ['callers: not read (no usage database: set DATABASE_URL, or DATA_DIR for the embedded one)'];
  const coverage = impact.coverage
    ? `request shapes measured on ${impact.coverage.measuredDays} of ${days} days` +
      (impact.coverage.dropped > 0 ? `, ${impact.coverage.dropped} shapes dropped` : '')
    : 'request shapes not read';
  if (impact.callers === null) return [`callers: not measured (${coverage}; not in the deprecation registry)`];
  if (impact.callers.length === 0) return [`callers: none in the last ${days} days (${coverage})`];
  return [
    `callers in the last ${days} days (who breaks; ${coverage}):`,
    ...impact.callers.map((caller) => {
      const who =
        caller.apiKeyId === 0
          ? caller.own
            ? '(the Order API itself)'
            : '(no key)'
          : `key ${caller.apiKeyId}${caller.label ? ` "${caller.label}"` : ''} ${caller.owner ?? ''} <${caller.email ?? ''}>`;
      return (
        `  ${who} [${caller.clients.join(', ')}] ${caller.uses} uses, ` +
        `${caller.brownoutHits} brownout hits, last ${caller.lastSeen}`
      );
    }),
  ];
}

/** The report as a table. */
export function impactTable(impacts: Impact[], unattributed: string[], measured: boolean, days: number): string {
  const lines: string[] = [];
  const print = (line: string) => lines.push(line);
  if (impacts.length === 0) print('No item is removed or changed incompatibly.');
  for (const impact of impacts) {
    print(`${impact.contract.padEnd(8)} ${impact.item}  [${impact.rule}]`);
    print(`         ${impact.message}`);
    if (impact.restOperations.length > 0) print(`         REST operations: ${impact.restOperations.join(', ')}`);
    if (impact.persistedOperations.length > 0)
      print(`         persisted GraphQL operations that stop validating: ${impact.persistedOperations.join(', ')}`);
    if (impact.grpcMethods.length > 0) print(`         gRPC methods: ${impact.grpcMethods.join(', ')}`);
    for (const line of callerLines(impact, measured, days)) print(`         ${line}`);
  }
  if (unattributed.length > 0) print(`\nOther persisted operations that stop validating: ${unattributed.join(', ')}`);
  return lines.join('\n');
}

/** The last line: how many items would break a caller, or why that cannot be said. */
export function impactVerdict(impacts: Impact[], measured: boolean, days: number): string {
  const breaking = impacts.filter((impact) => (impact.callers ?? []).length > 0);
  const unmeasured = impacts.filter((impact) => impact.callers === null);
  if (breaking.length > 0) return `${breaking.length} item(s) would break callers seen in the last ${days} days.`;
  if (!measured || unmeasured.length > 0)
    return `${measured ? unmeasured.length : impacts.length} item(s) not measured: who they would break is not known.`;
  return `No caller seen in the last ${days} days would break.`;
}
