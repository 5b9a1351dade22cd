import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chaseCycle, dependentReadNs } from '../bench/support/memory-probe.ts';

/** A repeatable generator in [0, 1) (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

test('the memory probe chases one cycle through every cache line, each read landing on a line start', () => {
  for (const [lines, seed] of [[2, 1], [3, 7], [1000, 42], [4096, 9]] as const) {
    const memory = chaseCycle(lines, seeded(seed));
    assert.equal(memory.length, lines * 16);
    const seen = new Uint8Array(lines);
    let at = 0;
    for (let hop = 0; hop < lines; hop++) {
      assert.equal(at % 16, 0, `hop ${hop} lands on a line start`);
      assert.equal(seen[at / 16], 0, `line ${at / 16} is visited once (${lines} lines, seed ${seed})`);
      seen[at / 16] = 1;
      at = memory[at]!;
    }
    assert.equal(at, 0, `the chase is back at the first line after ${lines} reads`);
  }
});

test('the memory probe times reads over a working set', () => {
  const ns = dependentReadNs(1, seeded(3));
  assert.ok(Number.isFinite(ns) && ns > 0, `${ns} ns per read`);
});
