import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson } from './canonical-json.ts';
import { contentHash } from './content-hash.ts';

test('key order does not change the encoding or the hash', () => {
  const a = { b: 1, a: [{ y: 'x', x: null }], c: { e: true, d: 'é' } };
  const b = { c: { d: 'é', e: true }, a: [{ x: null, y: 'x' }], b: 1 };
  assert.equal(canonicalJson(a), '{"a":[{"x":null,"y":"x"}],"b":1,"c":{"d":"é","e":true}}');
  assert.equal(contentHash(a), contentHash(b));
});

test('array order is significant (plans sort arrays themselves)', () => {
  assert.notEqual(contentHash([1, 2]), contentHash([2, 1]));
});

test('non-finite numbers are refused rather than silently encoded as null', () => {
  assert.throws(() => canonicalJson({ a: Number.NaN }), /non-finite/);
});

test('property: canonical encoding round-trips through JSON.parse to an equal value', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const text = canonicalJson(v);
      assert.equal(canonicalJson(JSON.parse(text)), text);
    }),
  );
});
