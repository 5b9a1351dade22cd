import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareObject } from './prepare-object.ts';

const seal = (data: Readonly<Record<string, string>>) => ({
  sealed: { keyId: 'k1', iv: 'iv', ciphertext: `ct(${Object.keys(data).sort().join(',')})`, tag: 't' },
  fingerprint: 'ab'.repeat(32),
});
const decode = (b: Uint8Array): Record<string, unknown> =>
  JSON.parse(new TextDecoder().decode(b)) as Record<string, unknown>;

test('a Secret is published with its data replaced by the sealed box and fingerprint, never the plaintext', () => {
  const p = prepareObject(
    'Secret',
    {
      metadata: {
        name: 'tls',
        namespace: 'a',
        uid: 'u',
        resourceVersion: '3',
        managedFields: [{ manager: 'kubectl' }],
      },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': 'Y2VydA==', 'tls.key': 'c2VjcmV0' },
      stringData: { 'tls.key': 'secret' },
    },
    { maxObjectBytes: 10_000, seal },
  );
  assert.ok(p.ok);
  const text = new TextDecoder().decode(p.bytes);
  assert.ok(!text.includes('c2VjcmV0') && !text.includes('"secret"') && !text.includes('managedFields'), text);
  assert.deepEqual(decode(p.bytes)['sealed'], { keyId: 'k1', iv: 'iv', ciphertext: 'ct(tls.crt,tls.key)', tag: 't' });
  assert.deepEqual(p.identity, { name: 'tls', namespace: 'a', uid: 'u', resourceVersion: '3' });
});

test('an object over the limit keeps its identity, loses its body and says why', () => {
  const raw = {
    metadata: { name: 'big', namespace: 'a', uid: 'u', resourceVersion: '3', annotations: { x: 'y'.repeat(5000) } },
    spec: {},
  };
  const p = prepareObject('Ingress', raw, { maxObjectBytes: 1000, seal });
  assert.ok(p.ok);
  assert.match(p.omittedReason, /^ObjectTooLarge: the trimmed object is \d+ bytes, over the bus limit of 1000 bytes$/);
  assert.ok(p.bytes.length < 300);
  assert.deepEqual(decode(p.bytes), {
    kind: 'Ingress',
    metadata: { name: 'big', namespace: 'a', uid: 'u', resourceVersion: '3' },
  });
  assert.ok(p.originalBytes > 5000);
});

test('an object without uid or resourceVersion is refused as undecodable', () => {
  assert.equal(
    prepareObject('Service', { metadata: { name: 'x', resourceVersion: '1' } }, { maxObjectBytes: 1000, seal }).ok,
    false,
  );
  assert.equal(prepareObject('Service', 'nope', { maxObjectBytes: 1000, seal }).ok, false);
});
