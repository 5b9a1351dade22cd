// The portable regex subset against the real thing: every pattern the planner accepts must compile in HAProxy
// (PCRE2), the engine that refuses the whole configuration when one expression is bad; and the patterns users
// found to break it must be refused by both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { findBinary, stackBinaries } from '@portolan/infra';
import { portableRegexProblem } from './core/translate/portable-regex.ts';

const run = promisify(execFile);

/** `haproxy -c` of one backend per pattern; returns the patterns HAProxy refused (by bisection when it refuses). */
async function refusedByHaproxy(patterns: readonly string[]): Promise<string[]> {
  const haproxy = findBinary(stackBinaries.haproxy);
  if (haproxy === null) throw new Error('haproxy is not installed (npm test installs it)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portolan-regex-'));
  const check = async (list: readonly string[]): Promise<boolean> => {
    const quote = (p: string): string => `'${p.replaceAll("'", "'\\''")}'`;
    const backends = list.map(
      (p, i) =>
        `backend b${i}\n  mode http\n  option httpchk\n  http-check expect rstatus ${quote(p)}\n  server s 127.0.0.1:1 check\n`,
    );
    const file = path.join(dir, 'haproxy.cfg');
    // A listener too: without one `haproxy -c` exits 2 ("will not start") whatever the backends say.
    writeFileSync(
      file,
      `global\n  log stdout format raw local0\ndefaults\n  mode http\n  timeout connect 1s\n  timeout client 1s\n  timeout server 1s\nfrontend f\n  bind 127.0.0.1:1\n  default_backend b0\n${backends.join('')}`,
    );
    try {
      await run(haproxy, ['-c', '-q', '-f', file]);
      return true;
    } catch (e) {
      // A numeric exit code: haproxy ran and refused the configuration. Anything else (not found, killed) is a fault.
      if (typeof (e as { code?: unknown }).code !== 'number') throw e;
      return false;
    }
  };
  const bisect = async (list: readonly string[]): Promise<string[]> => {
    if (list.length === 0 || (await check(list))) return [];
    if (list.length === 1) return [...list];
    const half = Math.ceil(list.length / 2);
    return [...(await bisect(list.slice(0, half))), ...(await bisect(list.slice(half)))];
  };
  try {
    return await bisect(patterns);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Patterns drawn from the subset's own grammar (the accepting side). */
const portablePattern: fc.Arbitrary<string> = fc.letrec((tie) => ({
  atom: fc.oneof(
    fc.constantFrom(
      'a',
      'Z',
      '0',
      '7',
      ' ',
      '/',
      '_',
      ',',
      ':',
      '.',
      '\\d',
      '\\w',
      '\\s',
      '\\D',
      '\\.',
      '\\*',
      '\\[',
      '\\]',
      '\\{',
      '\\}',
      '\\\\',
      '\\/',
      '\\-',
    ),
    fc.constantFrom('[0-9]', '[a-z_-]', '[^x]', '[\\d.]', '[-a]', '[\\]]', '[234]'),
    tie('group'),
  ),
  group: fc
    .tuple(fc.constantFrom('(', '(?:'), fc.array(tie('seq') as fc.Arbitrary<string>, { minLength: 1, maxLength: 3 }))
    .map(([open, alts]) => `${open}${alts.join('|')})`),
  quantified: fc
    .tuple(
      tie('atom') as fc.Arbitrary<string>,
      fc.constantFrom('', '', '*', '+', '?', '{2}', '{1,}', '{0,3}', '*?', '+?'),
    )
    .map(([a, q]) => a + q),
  seq: fc.array(tie('quantified') as fc.Arbitrary<string>, { maxLength: 4 }).map((parts) => parts.join('')),
  pattern: fc
    .tuple(fc.boolean(), tie('seq') as fc.Arbitrary<string>, fc.boolean())
    .map(([b, s, e]) => `${b ? '^' : ''}${s}${e ? '$' : ''}`),
})).pattern as fc.Arbitrary<string>;

test('every pattern the planner accepts compiles in HAProxy: grammar-drawn and random printable strings', async () => {
  const drawn = fc.sample(portablePattern, { numRuns: 300 });
  const junk = fc.sample(fc.string({ unit: fc.constantFrom(...'ab09^$.|?*+()[]{}\\-:=<!,dwsuxp'), maxLength: 12 }), {
    numRuns: 3000,
  });
  const accepted = [...new Set([...drawn, ...junk])].filter((p) => p.length > 0 && portableRegexProblem(p) === null);
  assert.ok(accepted.length > 300, `enough accepted patterns to mean something (${accepted.length})`);
  assert.deepEqual(
    await refusedByHaproxy(accepted),
    [],
    'HAProxy refused a pattern the planner would have let through',
  );
});

test('the patterns that froze an appliance are refused by HAProxy and by the planner', async () => {
  const bad = ['^2[^]0$', '^\\u0032', '(?<=a+)b'];
  for (const p of bad) assert.notEqual(portableRegexProblem(p), null, p);
  // At least the first two are refused by HAProxy itself (the third is refused by PCRE2 builds without variable-length lookbehind).
  const refused = await refusedByHaproxy(bad);
  assert.ok(refused.includes('^2[^]0$') && refused.includes('^\\u0032'), refused.join(' '));
});
