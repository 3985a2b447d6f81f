/**
 * Writes the signed export of the request-shape record (docs/decisions.md §13): every row of the last `days`
 * UTC days, the signatures they name, and the record's coverage, signed with the server's evidence key (as
 * the usage export is). Its format, and the reader impact analysis answers from
 * (`npm run contracts:impact -- --usage <file>`), are the contract registry's
 * (packages/contract-registry/src/shape-export.ts).
 */
import type { KeyObject } from 'node:crypto';
import {
  SHAPE_EXPORT_FORMAT,
  type ShapeExport,
  type ShapeExportContent,
  signDocument,
} from '@order-api/contract-registry';
import type { ShapePort } from '../../ports/index.js';
import { dayOf, daysBefore } from '../../shared/index.js';

/** Reads the record of the last `days` UTC days (today included), unsigned. */
export async function exportShapes(
  port: Pick<ShapePort, 'uses' | 'signatures' | 'coverage'>,
  days: number,
  now = new Date(),
): Promise<ShapeExportContent> {
  const from = daysBefore(now, days - 1);
  const [uses, coverage] = await Promise.all([port.uses({ sinceDay: from }), port.coverage(from)]);
  const hashes = [...new Set(uses.filter((row) => row.protocol === 'graphql').map((row) => row.shape))]
    .filter((shape) => shape.startsWith('sig:'))
    .map((shape) => shape.slice('sig:'.length));
  return {
    format: SHAPE_EXPORT_FORMAT,
    from,
    to: dayOf(now),
    rows: uses.map((row) => ({ ...row, firstSeen: row.firstSeen.toISOString(), lastSeen: row.lastSeen.toISOString() })),
    signatures: await port.signatures(hashes),
    coverage,
  };
}

/** Signs an export with the evidence key. */
export function signShapeExport(content: ShapeExportContent, privateKey: KeyObject): ShapeExport {
  return signDocument(content, privateKey);
}
