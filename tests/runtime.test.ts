import { test } from 'node:test';
import assert from 'node:assert/strict';

test('the suite runs on Node.js 24 (the node@24 devDependency), not the system Node', () => {
  process.stdout.write(`# running on Node.js ${process.version}\n`);
  assert.ok(Number(process.versions.node.split('.')[0]) >= 24, `running on ${process.version}`);
});
