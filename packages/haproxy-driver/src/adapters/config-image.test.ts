import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigImage, encodeBlocks, SECTIONS_PER_BLOCK } from './config-image.ts';

const sectionsOf = (n: number, tag = ''): string[] =>
  Array.from({ length: n }, (_, i) => `backend b${i}${tag}\n    server s0 10.0.${i >> 8}.${i & 255}:80`);
const text = (blocks: readonly Buffer[]): string => blocks.map((b) => b.toString('utf8')).join('\n');

test('blocks hold the sections joined by newlines, whatever the count', () => {
  for (const n of [
    0,
    1,
    SECTIONS_PER_BLOCK - 1,
    SECTIONS_PER_BLOCK,
    SECTIONS_PER_BLOCK + 1,
    3 * SECTIONS_PER_BLOCK + 17,
  ]) {
    const sections = sectionsOf(n);
    const blocks = encodeBlocks(sections, undefined, []);
    assert.equal(blocks.length, Math.ceil(n / SECTIONS_PER_BLOCK));
    assert.equal(text(blocks), sections.join('\n'));
  }
});

test('only the blocks holding a section that differs from the last write are encoded again', () => {
  const before = sectionsOf(3 * SECTIONS_PER_BLOCK + 5);
  const held = encodeBlocks(before, undefined, []);
  const next = before.slice();
  next[SECTIONS_PER_BLOCK + 3] = `${next[SECTIONS_PER_BLOCK + 3]!} weight 2`;
  // An equal string built anew is no change: its block keeps its bytes.
  next[3 * SECTIONS_PER_BLOCK] =
    `${before[3 * SECTIONS_PER_BLOCK]!.slice(0, 1)}${before[3 * SECTIONS_PER_BLOCK]!.slice(1)}`;
  next[2 * SECTIONS_PER_BLOCK + 1] = `${next[2 * SECTIONS_PER_BLOCK + 1]!.slice(0, -1)}9`;
  const blocks = encodeBlocks(next, before, held);
  assert.deepEqual(
    blocks.map((b, k) => b === held[k]),
    [true, false, false, true],
  );
  assert.equal(text(blocks), next.join('\n'));
});

test('a different section count reuses only the blocks whose range and sections are unchanged', () => {
  const before = sectionsOf(2 * SECTIONS_PER_BLOCK + 10);
  const held = encodeBlocks(before, undefined, []);
  const shorter = before.slice(0, 2 * SECTIONS_PER_BLOCK + 3);
  const blocks = encodeBlocks(shorter, before, held);
  assert.deepEqual(
    blocks.map((b, k) => b === held[k]),
    [true, true, false],
  );
  assert.equal(text(blocks), shorter.join('\n'));
  const longer = [...before, ...sectionsOf(SECTIONS_PER_BLOCK, 'x')];
  const grown = encodeBlocks(longer, before, held);
  assert.deepEqual(
    grown.map((b, k) => b === held[k]),
    [true, true, false, false],
  );
  assert.equal(text(grown), longer.join('\n'));
});

test('each write of an image leaves exactly the joined sections in the file', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'portolan-config-image-'));
  try {
    const file = path.join(dir, 'haproxy.cfg');
    let sections = sectionsOf(2 * SECTIONS_PER_BLOCK + 1);
    let image = await ConfigImage.write(file, sections);
    assert.equal(readFileSync(file, 'utf8'), sections.join('\n'));
    for (const k of [0, SECTIONS_PER_BLOCK, 2 * SECTIONS_PER_BLOCK]) {
      sections = sections.slice();
      sections[k] = `${sections[k]!}\n    server s1 10.9.9.9:80`;
      image = await ConfigImage.write(file, sections, image);
      assert.equal(readFileSync(file, 'utf8'), sections.join('\n'));
      assert.ok(await image.isOnDisk(file));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
