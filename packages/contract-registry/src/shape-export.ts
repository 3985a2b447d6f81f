/**
 * The signed export of the request-shape record: every row of some UTC days, the signatures they name,
 * and the record's coverage, signed with the service's evidence key (./evidence-signature.ts). A contract
 * owner without access to the production database runs impact analysis from it; the reader below answers
 * impact's reads from the file, after its signature was checked against the evidence key.
 */
import { type Signed, signatureProblem } from './evidence-signature.js';
import type { ShapeCoverage, ShapeProtocol, ShapeRecordReader, ShapeSignature, ShapeUse } from './records.js';

/** The format name and version impact accepts. */
export const SHAPE_EXPORT_FORMAT = 'order-api.shape-export/1';

/** One row, as the export carries it (times as ISO text). */
export interface ExportedShape extends Omit<ShapeUse, 'firstSeen' | 'lastSeen'> {
  firstSeen: string;
  lastSeen: string;
}

/** The export before it is signed. */
export interface ShapeExportContent {
  format: typeof SHAPE_EXPORT_FORMAT;
  /** The first and last UTC day it covers. */
  from: string;
  to: string;
  rows: ExportedShape[];
  signatures: ShapeSignature[];
  coverage: ShapeCoverage[];
}

/** A signed export. */
export type ShapeExport = ShapeExportContent & Signed;

/**
 * The reads impact needs, answered from a signed export; throws when it is not one, not signed by
 * `publicKeyText` (the evidence key, SPKI PEM), or altered.
 */
export function shapeExportReader(document: Record<string, unknown>, publicKeyText: string): ShapeRecordReader {
  if (document.format !== SHAPE_EXPORT_FORMAT) throw new Error(`not a ${SHAPE_EXPORT_FORMAT} file`);
  const problem = signatureProblem(document, publicKeyText);
  if (problem) throw new Error(`the shape export cannot be trusted: ${problem}`);
  const content = document as unknown as ShapeExport;
  const rows: ShapeUse[] = content.rows.map((row) => ({
    ...row,
    firstSeen: new Date(row.firstSeen),
    lastSeen: new Date(row.lastSeen),
  }));
  const texts = new Map(content.signatures.map((entry) => [entry.hash, entry]));
  return {
    async uses({ sinceDay, protocol, shapes, prefix }) {
      const wanted = shapes ? new Set(shapes) : undefined;
      return rows.filter(
        (row) =>
          row.day >= sinceDay &&
          (protocol === undefined || row.protocol === (protocol as ShapeProtocol)) &&
          (wanted === undefined || wanted.has(row.shape)) &&
          (prefix === undefined || row.shape.startsWith(prefix)),
      );
    },
    signatures: async (hashes) => hashes.flatMap((hash) => texts.get(hash) ?? []),
    coverage: async (sinceDay) => content.coverage.filter((day) => day.day >= sinceDay),
  };
}
