import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson } from './canonical-json.ts';
import { JoinedText, isSameText } from './joined-text.ts';
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

/** The specification written plainly (map, sort, join): the encoder must give the same text for every JSON value. */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
}

test('property: the encoding is the plainly written specification, for objects of any size and key order', () => {
  const wide = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { minKeys: 30, maxKeys: 60 });
  fc.assert(
    fc.property(fc.oneof(fc.jsonValue(), wide, fc.array(wide, { maxLength: 3 })), (v) => {
      assert.equal(canonicalJson(v), reference(v));
    }),
  );
});

test('undefined object values are left out, as JSON.stringify leaves them', () => {
  assert.equal(canonicalJson({ b: undefined, a: 1 }), '{"a":1}');
});

test('a text carried as its parts serialises as the string it joins to', () => {
  const text = new JoinedText(['global', 'defaults', 'backend b'], '\n');
  assert.equal(
    canonicalJson({ content: text, path: 'haproxy.cfg' }),
    canonicalJson({ path: 'haproxy.cfg', content: 'global\ndefaults\nbackend b' }),
  );
  assert.equal(JSON.stringify({ content: text }), JSON.stringify({ content: 'global\ndefaults\nbackend b' }));
  assert.ok(isSameText(text, 'global\ndefaults\nbackend b'));
  assert.ok(!isSameText(text, new JoinedText(['global', 'defaults', 'backend c'], '\n')));
});
