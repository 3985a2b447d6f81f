/**
 * How many callers seen in the window each breaking finding would break, from the request-shape record
 * for the gate to show beside its verdict. Read only when the owner asks for it: a record they named (the
 * project's `LiveRecords.named()`, never an implicit one a running server may hold), or a signed export
 * (`--usage <file>`). The verdict and the exit code stay the gate's own.
 */
import { daysBefore } from '@order-api/contract-registry';
import { callersOfRows, coverageOf } from '../impact/impact-callers.js';
import { protoItems } from '../impact/proto-items.js';
import { PROTOCOL, type ShapeReader, shapeMatches } from '../impact/shape-callers.js';
import { type Finding, readContracts } from './gate.js';

/** A finding's count: the callers it would break, or null when the window was not measured. */
export interface CallerCount {
  finding: Finding;
  callers: number | null;
}

/** The count of each finding, over the last `days` UTC days. */
export async function callerCounts(
  findings: Finding[],
  { baseDir, headDir, days, reader }: { baseDir: string; headDir: string; days: number; reader: ShapeReader },
): Promise<CallerCount[]> {
  if (findings.length === 0) return [];
  const [base, head, baseProto] = [readContracts(baseDir), readContracts(headDir), protoItems(baseDir)];
  const sinceDay = daysBefore(new Date(), days - 1);
  const matches = await shapeMatches({ reader, sinceDay, queries: findings, base, head, baseProto });
  const coverage = await reader.coverage(sinceDay);
  return findings.map((finding) => {
    const measured = coverageOf(coverage, PROTOCOL[finding.contract], days).measuredDays > 0;
    const rows = matches.get(finding) ?? [];
    return { finding, callers: measured || rows.length > 0 ? callersOfRows(rows).length : null };
  });
}

/** The lines the gate prints: each finding's count, or that it was not measured. */
export function callerCountLines(counts: CallerCount[], days: number): string[] {
  if (counts.length === 0) return [];
  return [
    `Callers seen in the last ${days} days that each breaking change would break (request-shape record):`,
    ...counts.map(({ finding, callers }) => {
      const count = callers === null ? 'not measured' : `${callers} caller(s)`;
      return `  ${count.padEnd(14)} [${finding.rule}] ${finding.item}`;
    }),
    '',
  ];
}
