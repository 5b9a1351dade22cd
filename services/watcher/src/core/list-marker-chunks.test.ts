import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { create, toBinary, KubeListMarkerSchema, timestampFromMs } from '@portolan/proto';
import { chunkListMarkerKeys } from './list-marker-chunks.ts';

function encodedSize(keys: string[], index: number, count: number): number {
  return toBinary(
    KubeListMarkerSchema,
    create(KubeListMarkerSchema, {
      cluster: 'c'.repeat(63),
      kind: 4,
      listResourceVersion: '18446744073709551615',
      listGeneration: 18_446_744_073_709_551_615n,
      chunkIndex: index,
      chunkCount: count,
      keys,
      observedAt: timestampFromMs(1_800_000_000_000),
    }),
  ).length;
}

test('every chunk of a large marker encodes under the payload limit, and the chunks together hold every key in order', () => {
  const keys = Array.from(
    { length: 40_000 },
    (_, i) => `namespace-${i % 97}/endpointslice-${String(i).padStart(6, '0')}-abcde`,
  ).sort();
  const max = 64 * 1024;
  const chunks = chunkListMarkerKeys(keys, max);
  assert.ok(chunks.length > 1);
  chunks.forEach((c, i) =>
    assert.ok(encodedSize(c, i, chunks.length) <= max, `chunk ${i} is ${encodedSize(c, i, chunks.length)} bytes`),
  );
  assert.deepEqual(chunks.flat(), keys);
});

test('an empty kind is one empty chunk (it still deletes everything of the kind)', () => {
  assert.deepEqual(chunkListMarkerKeys([], 1024), [[]]);
});

test('property: chunking is deterministic, lossless and under the limit for any keys', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.string({ minLength: 1, maxLength: 300, unit: 'grapheme' }), { maxLength: 300 }),
      fc.integer({ min: 2048, max: 20_000 }),
      (raw, max) => {
        const keys = [...raw].sort();
        const a = chunkListMarkerKeys(keys, max);
        assert.deepEqual(a, chunkListMarkerKeys(keys, max));
        assert.deepEqual(a.flat(), keys);
        a.forEach((c, i) => assert.ok(encodedSize(c, i, a.length) <= max));
      },
    ),
    { numRuns: 50 },
  );
});
