import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffRuleList, isSameRule } from './diff-rule-lists.ts';

test('rule lists: the common prefix stays, the rest is removed and appended in order', () => {
  const summary = (want: string[], have: string[]): string[] =>
    diffRuleList('vs', 'sv', 'request', want, have).map((o) => `${o.action} ${String(o.payload?.['rule'])}`);
  assert.deepEqual(summary(['a', 'b'], ['a', 'b']), []);
  assert.deepEqual(summary(['a', 'b', 'c'], ['a', 'b']), ['create c']);
  assert.deepEqual(summary(['a', 'b'], ['b', 'a']), ['delete b', 'delete a', 'create a', 'create b']);
  assert.deepEqual(summary(['a'], ['a', 'x']), ['delete x']);
  const pre = diffRuleList('vs', null, 'pre', ['a'], []);
  assert.deepEqual(pre[0]?.payload, { parent: 'vs', list: 'pre', rule: 'a' });
});

test('rules compare on every parameter, absent ones at their defaults', () => {
  const base = { name: 'r', pattern: '/x/', incHost: true };
  assert.equal(isSameRule(base, { ...base, type: 0, header: '', setOnMatch: 0 }), true);
  assert.equal(isSameRule({ ...base, onlyOnFlag: 2 }, base), false);
  assert.equal(isSameRule({ ...base, type: 1, replacement: 'v' }, { ...base, type: 1, replacement: 'w' }), false);
});
