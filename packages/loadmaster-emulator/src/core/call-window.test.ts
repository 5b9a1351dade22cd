import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallWindow } from './call-window.ts';

test('30 calls in 3 s are admitted, the 31st is refused, and room returns once the window slides', () => {
  const w = new CallWindow(30, 3000);
  for (let i = 0; i < 30; i++) assert.equal(w.admit(1000 + i * 10), true);
  assert.equal(w.admit(2000), false);
  assert.equal(w.admit(3999), false);
  assert.equal(w.admit(4000), true, 'the first call (t=1000) left the window at t=4000');
});
