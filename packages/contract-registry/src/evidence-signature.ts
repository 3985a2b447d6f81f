/**
 * The signature of a usage export: the evidence a removal needs is signed by the server that
 * measured it, so that a hand-written or edited file cannot pass the release gate. Ed25519 over the
 * canonical JSON (canonical-json.ts) of every member of the export but `signature`; `keyId` names
 * the key (the SHA-256 of its public key, SPKI DER) and is signed with the rest.
 *
 * The server's key comes from `EVIDENCE_SIGNING_KEY` (an Ed25519 private key, PKCS#8 PEM or the base64 of
 * its DER) or is generated at the first start and kept in the database; its public half is published at
 * `GET /contracts/evidence-key` (SPKI PEM) and committed as contracts/evidence-key.pem, where the gate
 * reads it from the baseline release.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/** The members a signed document adds: the key that signed it (signed too) and the signature (base64). */
export interface Signed {
  keyId: string;
  signature: string;
}

/** Reads an Ed25519 private key given as PKCS#8 PEM or as the base64 of its PKCS#8 DER. */
export function parsePrivateKey(text: string): KeyObject {
  const trimmed = text.trim();
  const key = trimmed.startsWith('-----BEGIN')
    ? createPrivateKey(trimmed)
    : createPrivateKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`an Ed25519 key is needed, not ${key.asymmetricKeyType}`);
  return key;
}

/** A new Ed25519 private key as PKCS#8 PEM. */
export function generatePrivateKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

/** The public key of a private key (or the key itself when public) as SPKI PEM, as published and committed. */
export function publicKeyPem(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return publicKey.export({ format: 'pem', type: 'spki' }).toString();
}

/** `sha256:<hex>` of the public key's SPKI DER: the same for a private key and its public half. */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return `sha256:${createHash('sha256').update(der).digest('hex')}`;
}

/** The bytes a signature covers: the canonical JSON of the document without `signature`. */
function signedBytes(document: Record<string, unknown>): Buffer {
  const { signature: _signature, ...content } = document;
  return Buffer.from(canonicalJson(content), 'utf8');
}

/** Signs a document with `privateKey`: the document with `keyId` and `signature` added. */
export function signDocument<T extends object>(document: T, privateKey: KeyObject): T & Signed {
  const withKey = { ...document, keyId: keyIdOf(privateKey) } as T & { keyId: string };
  const signature = sign(null, signedBytes(withKey as Record<string, unknown>), privateKey).toString('base64');
  return { ...withKey, signature };
}

/**
 * Why a document does not carry a valid signature of `publicKeyText` (SPKI PEM); undefined when it does:
 * unsigned, signed by another key, or altered after signing.
 */
export function signatureProblem(document: Record<string, unknown>, publicKeyText: string): string | undefined {
  const { keyId, signature } = document;
  if (typeof keyId !== 'string' || typeof signature !== 'string' || signature === '') return 'it is not signed';
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey(publicKeyText);
  } catch {
    return 'the evidence key it is checked against is not a public key (SPKI PEM)';
  }
  const expected = keyIdOf(publicKey);
  if (keyId !== expected) return `it is signed by the key ${keyId}, not by the evidence key ${expected}`;
  const valid = verify(null, signedBytes(document), publicKey, Buffer.from(signature, 'base64'));
  return valid ? undefined : 'its signature does not match its content: it was altered after it was signed';
}
