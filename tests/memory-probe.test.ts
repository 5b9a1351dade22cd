import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chaseCycle, dependentReadNs } from '../bench/support/memory-probe.ts';
import { prng } from '../bench/support/world.ts';

/** A repeatable generator in [0, 1), from the benchmark worlds' seeded generator. */
function seeded(seed: number): () => number {
  const draw = prng(seed);
  return () => draw(2 ** 31) / 2 ** 31;
}

test('the memory probe chases one cycle through every cache line, each read landing on a line start', () => {
  for (const [lines, seed] of [
    [2, 1],
    [3, 7],
    [1000, 42],
    [4096, 9],
  ] as const) {
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
