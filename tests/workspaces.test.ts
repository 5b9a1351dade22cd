import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { rootTsconfig } from '../scripts/sync-tsconfig.ts';

test('the root tsconfig references every workspace, so `tsc -b` type-checks all of them', () => {
  const current = readFileSync(path.resolve(import.meta.dirname, '..', 'tsconfig.json'), 'utf8');
  assert.equal(current, rootTsconfig(), 'run: node scripts/sync-tsconfig.ts');
});
