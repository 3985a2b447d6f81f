/**
 * Signed evidence for tests of the retirement rules: a key standing for a deployment's evidence key, and
 * releases (as the gate's release history holds them) that commit its public half.
 */
import type { ReleaseInfo } from '../../scripts/breaking/release-history.js';
import type { DeprecationRegistry } from '../../src/core/deprecation-registry.js';
import { generatePrivateKeyPem, parsePrivateKey, publicKeyPem } from '../../src/core/evidence-signature.js';

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
