import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkReason, MAX_REASON_LENGTH } from './operator-reason.ts';

test('a reason is required, trimmed, and at most 1000 characters', () => {
  const cases: { name: string; reason: string | null | undefined; want: string | RegExp }[] = [
    { name: 'given', reason: '  bad deploy \n', want: 'bad deploy' },
    { name: 'missing', reason: undefined, want: /a reason is required/ },
    { name: 'null', reason: null, want: /a reason is required/ },
    { name: 'blank', reason: ' \t ', want: /a reason is required/ },
    { name: 'at the limit', reason: 'x'.repeat(MAX_REASON_LENGTH), want: 'x'.repeat(MAX_REASON_LENGTH) },
    { name: 'too long', reason: 'x'.repeat(MAX_REASON_LENGTH + 1), want: /1001 characters; at most 1000/ },
  ];
  for (const c of cases) {
    const r = checkReason(c.reason);
    if (typeof c.want === 'string') assert.deepEqual(r, { ok: true, reason: c.want }, c.name);
    else assert.ok(!r.ok && c.want.test(r.message), `${c.name}: ${JSON.stringify(r)}`);
  }
});
