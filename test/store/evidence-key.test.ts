/**
 * The key that signs usage exports, over the real store (PGlite, or PostgreSQL with TEST_DATABASE_URL):
 * generated once and kept, the same for every instance of one database, or given by EVIDENCE_SIGNING_KEY.
 */

import { generatePrivateKeyPem, keyIdOf, parsePrivateKey } from '@order-api/contract-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { evidenceSigningKey } from '../../src/store/evidence-key-store.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase({ poolSize: 4 });
});
afterAll(() => database?.close());

describe('the evidence signing key', () => {
  it('is generated once: instances starting together over one database all sign with the same key', async () => {
    const keys = await Promise.all(Array.from({ length: 4 }, () => evidenceSigningKey(database.db)));
    const ids = new Set(keys.map(keyIdOf));
    expect(ids.size).toBe(1);
    expect(keyIdOf(await evidenceSigningKey(database.db))).toBe([...ids][0]);
    const rows = await database.db.query('SELECT id FROM evidence_signing_key');
    expect(rows).toHaveLength(1);
  });

  it('is the configured one when EVIDENCE_SIGNING_KEY is set, as PEM or as base64 DER', async () => {
    const pem = generatePrivateKeyPem();
    const expected = keyIdOf(parsePrivateKey(pem));
    expect(keyIdOf(await evidenceSigningKey(database.db, pem))).toBe(expected);
    const der = parsePrivateKey(pem).export({ format: 'der', type: 'pkcs8' }).toString('base64');
    expect(keyIdOf(await evidenceSigningKey(database.db, der))).toBe(expected);
  });

  it('refuses to start with a key that is not an Ed25519 private key', () => {
    expect(() => loadConfig({ EVIDENCE_SIGNING_KEY: 'not a key' })).toThrow(
      /EVIDENCE_SIGNING_KEY: must be an Ed25519 private key: PKCS#8 PEM, or the base64 of its PKCS#8 DER/,
    );
  });
});
