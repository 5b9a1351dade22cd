import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CyclePhases } from './cycle-phases.ts';

test('phases are measured from the previous mark, from an origin before the cycle, and a repeated name adds up', () => {
  let t = 100;
  const phases = new CyclePhases(() => t, 90);
  t = 103;
  phases.mark('queued');
  t = 103.26;
  phases.mark('head');
  t = 110;
  phases.mark('send');
  t = 111;
  phases.mark('head');
  assert.deepEqual(phases.toObject(), { queued: 13, head: 1.3, send: 6.7 });
  assert.equal(phases.totalMs, 21);
  assert.deepEqual(
    phases.seconds().map(([n, s]) => [n, Math.round(s * 10_000) / 10_000]),
    [
      ['queued', 0.013],
      ['head', 0.0013],
      ['send', 0.0067],
    ],
  );
});
