/**
 * Signed evidence for tests of the retirement rules: a key standing for a deployment's evidence key, and
 * releases (as the gate's release history holds them) that commit its public half.
 */
import type { ReleaseInfo } from '@order-api/contract-gate';
import type { DeprecationRegistry } from '@order-api/contract-registry';
import {
  type ExportBrownout,
  type ExportDay,
  generatePrivateKeyPem,
  heldBy,
  incompleteReasons,
  parsePrivateKey,
  publicKeyPem,
  USAGE_EXPORT_FORMAT,
} from '@order-api/contract-registry';

/** A deployment's evidence key (private), and its public half as committed in contracts/evidence-key.pem. */
export function evidenceKeyPair() {
  const privateKey = parsePrivateKey(generatePrivateKeyPem());
  return { privateKey, publicPem: publicKeyPem(privateKey) };
}

/** The release with `evidence-key.pem` committed as `publicPem` (or absent when undefined). */
export function withEvidenceKey(release: ReleaseInfo, publicPem: string | undefined): ReleaseInfo {
  return {
    ...release,
    file: (name) => (name === 'evidence-key.pem' ? publicPem : release.file(name)),
  };
}

/** A release made of a registry alone (no contract files but the evidence key). */
export function releaseOfRegistry(
  registry: DeprecationRegistry,
  { version = '1.0.0', date, publicPem }: { version?: string; date: string; publicPem?: string },
): ReleaseInfo {
  return {
    version,
    date,
    commit: '',
    registry: () => registry,
    file: (name) => (name === 'evidence-key.pem' ? publicPem : undefined),
  };
}

/** One day of an export: two instances, both flushed, nothing dropped, no use, unless given. */
export type Day = Partial<Pick<ExportDay, 'instances' | 'flushedInstances' | 'droppedUses' | 'uses' | 'brownoutHits'>>;
/** A brownout window of an export (its start and end default to 10:00–10:30 on the export's last day). */
export type Window = Partial<ExportBrownout>;
/** What the export is about and how it ends. */
export interface UsageExportOptions {
  /** The last day, YYYY-MM-DD (the export's clock is its end). */
  to: string;
  item: string;
  format?: string;
  brownouts?: Window[];
}

/** The unsigned content of a usage export, one entry per day ending `to`, as `npm run usage:export` builds it. */
export function usageExportContent(
  days: Day[],
  { to, format = USAGE_EXPORT_FORMAT, item: id, brownouts = [] }: UsageExportOptions,
) {
  const end = Date.parse(`${to}T00:00:00Z`);
  const list = days.map((day, index) => {
    const instances = day.instances ?? 2;
    const counts = {
      instances,
      flushedInstances: day.flushedInstances ?? instances,
      droppedUses: day.droppedUses ?? 0,
    };
    const incomplete = incompleteReasons(counts);
    return {
      day: new Date(end - (days.length - 1 - index) * 86_400_000).toISOString().slice(0, 10),
      ...counts,
      measured: incomplete.length === 0,
      incomplete,
      uses: day.uses ?? 0,
      replacementUses: 0,
      brownoutHits: day.brownoutHits ?? 0,
    };
  });
  const used = list.some((day) => day.uses + day.brownoutHits > 0);
  const asOf = `${to}T23:59:59.999Z`;
  return {
    format,
    item: id,
    from: list[0]?.day,
    to,
    asOf,
    days: list,
    callers: used
      ? [
          {
            apiKeyId: 7,
            owner: 'Ann Web',
            email: 'ann@example.com',
            clients: ['shop-web/3.2.1'],
            uses: 4,
            brownoutHits: 1,
            lastSeen: `${to}T08:00:00.000Z`,
          },
        ]
      : [],
    brownouts: brownouts.map((window, index) => {
      const startsAt = window.startsAt ?? `${to}T10:00:00.000Z`;
      const endsAt = window.endsAt ?? `${to}T10:30:00.000Z`;
      const cancelledAt = window.cancelledAt ?? null;
      return {
        id: index + 1,
        startsAt,
        endsAt,
        minutes: Math.floor((Date.parse(endsAt) - Date.parse(startsAt)) / 60_000),
        cancelledAt,
        held: heldBy({ endsAt, cancelledAt }, asOf),
        hits: 0,
      };
    }),
  };
}
