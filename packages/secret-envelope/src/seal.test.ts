import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { fleetKeyFromBytes } from './fleet-key.ts';
import { sealSecretData, openSealedData, fingerprintSecretData, SealError } from './seal.ts';

const key = fleetKeyFromBytes(randomBytes(32), 'k1');
const data = {
  'tls.crt': Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB').toString('base64'),
  'tls.key': Buffer.from('-----BEGIN PRIVATE KEY-----\nsecret').toString('base64'),
};

test('sealed data contains no clear material and opens to the original map', () => {
  const s = sealSecretData(key, data);
  const wire = JSON.stringify(s);
  assert.ok(!wire.includes(data['tls.key']) && !wire.includes('PRIVATE KEY'), 'key material leaked');
  assert.deepEqual(openSealedData(key, s.sealed), data);
});

test('fingerprints are deterministic, key-order independent, and change with the material', () => {
  const reordered = { 'tls.key': data['tls.key'], 'tls.crt': data['tls.crt'] };
  assert.equal(sealSecretData(key, data).fingerprint, sealSecretData(key, reordered).fingerprint);
  assert.notEqual(fingerprintSecretData(key, data), fingerprintSecretData(key, { ...data, 'tls.key': 'b3RoZXI=' }));
  const otherKey = fleetKeyFromBytes(randomBytes(32), 'k1');
  assert.notEqual(fingerprintSecretData(key, data), fingerprintSecretData(otherKey, data), 'fingerprints are keyed');
});

test('tampering or a foreign key is refused with SealError', () => {
  const s = sealSecretData(key, data);
  const flipped = Buffer.from(s.sealed.ciphertext, 'base64');
  flipped[0] = (flipped[0] ?? 0) ^ 1;
  assert.throws(() => openSealedData(key, { ...s.sealed, ciphertext: flipped.toString('base64') }), SealError);
  assert.throws(() => openSealedData(fleetKeyFromBytes(randomBytes(32), 'k2'), s.sealed), /sealed with key "k1"/);
});
