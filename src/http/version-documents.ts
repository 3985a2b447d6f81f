/**
 * The REST contract as each of its versions serves it: one OpenAPI document per version, holding that
 * version's own operations and every operation of the older versions it does not change, under its own
 * prefix (spec §9.2 rule 5; the router serves them so, src/rest/router.ts). `/contracts/openapi` keeps
 * publishing the whole contract; `/contracts/openapi/<version>` and `/docs/<version>` publish these.
 */
import { pathVersion, type VersionMounts } from './version-mounts.js';

type Json = Record<string, unknown>;

/** The document of one version: its paths, and the older versions' paths it inherits, rebased. */
export function versionDocument(document: Json, mounts: VersionMounts, version: string): Json {
  const paths: Record<string, Json> = {};
  const written = Object.entries((document.paths ?? {}) as Record<string, Json>);
  for (const [template, item] of written) if (!pathVersion(template)) paths[template] = item;
  // Newest first: what a newer version declares for a path (an operation, its parameters) hides the older one's.
  for (const candidate of mounts.lineage(version)) {
    for (const [template, item] of written) {
      if (pathVersion(template) !== candidate) continue;
      const rebased = mounts.rebase(template, version);
      const target = paths[rebased] ?? {};
      paths[rebased] = target;
      for (const [key, value] of Object.entries(item)) if (!(key in target)) target[key] = value;
    }
  }
  const info = (document.info ?? {}) as Json;
  return { ...document, info: { ...info, title: `${String(info.title ?? 'API')} (${version})` }, paths };
}
