import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  advanceStream,
  checkStreamClock,
  initialStreamState,
  type StreamInput,
  type StreamState,
  type StreamStep,
} from './stream-state.ts';

const timing = { stallMs: 60_000, relistMs: 300_000, watchTimeoutSeconds: 300 };

function run(
  inputs: readonly [StreamInput, number][],
  random = 0.5,
): { state: StreamState; steps: (StreamStep | null)[] } {
  let state = initialStreamState(0);
  const steps: (StreamStep | null)[] = [];
  for (const [input, now] of inputs) {
    const r = advanceStream(state, input, timing, now, random);
    state = r.state;
    steps.push(r.step);
  }
  return { state, steps };
}

const cases: {
  name: string;
  inputs: [StreamInput, number][];
  want: StreamStep | null;
  resourceVersion?: string | null;
}[] = [
  {
    name: 'a completed list watches from the list resourceVersion',
    inputs: [[{ type: 'listed', resourceVersion: '10' }, 1]],
    want: { type: 'watch', resourceVersion: '10', timeoutSeconds: 450 },
  },
  {
    name: 'a clean watch end resumes from the last event without a list',
    inputs: [
      [{ type: 'listed', resourceVersion: '10' }, 1],
      [{ type: 'progressed', resourceVersion: '15' }, 2],
      [{ type: 'watch-ended' }, 3],
    ],
    want: { type: 'watch', resourceVersion: '15', timeoutSeconds: 450 },
  },
  {
    name: 'a bookmark moves the resume point too',
    inputs: [
      [{ type: 'listed', resourceVersion: '10' }, 1],
      [{ type: 'progressed', resourceVersion: '99' }, 2],
      [{ type: 'failed', failure: 'transient' }, 3],
      [{ type: 'waited' }, 900],
    ],
    want: { type: 'watch', resourceVersion: '99', timeoutSeconds: 450 },
  },
  {
    name: '410 costs one list and forgets the resourceVersion',
    inputs: [
      [{ type: 'listed', resourceVersion: '10' }, 1],
      [{ type: 'failed', failure: 'gone' }, 2],
    ],
    want: { type: 'list' },
    resourceVersion: null,
  },
  {
    name: 'a garbled line relists',
    inputs: [
      [{ type: 'listed', resourceVersion: '10' }, 1],
      [{ type: 'failed', failure: 'garbled' }, 2],
    ],
    want: { type: 'list' },
  },
  {
    name: 'a stall relists',
    inputs: [
      [{ type: 'listed', resourceVersion: '10' }, 1],
      [{ type: 'failed', failure: 'stalled' }, 70_000],
    ],
    want: { type: 'list' },
  },
  {
    name: 'a transient error waits with backoff, keeping the resourceVersion',
    inputs: [
      [{ type: 'listed', resourceVersion: '10' }, 1],
      [{ type: 'failed', failure: 'transient' }, 2],
    ],
    want: { type: 'wait', ms: 375 },
    resourceVersion: '10',
  },
  {
    name: 'a list that fails transiently is retried as a list after the wait',
    inputs: [
      [{ type: 'failed', failure: 'transient' }, 1],
      [{ type: 'waited' }, 500],
    ],
    want: { type: 'list' },
  },
  {
    name: 'a watch ending after the relist period relists',
    inputs: [
      [{ type: 'listed', resourceVersion: '10' }, 1],
      [{ type: 'watch-ended' }, 300_001],
    ],
    want: { type: 'list' },
  },
  {
    name: 'events and bookmarks need no new request',
    inputs: [
      [{ type: 'listed', resourceVersion: '10' }, 1],
      [{ type: 'progressed', resourceVersion: '11' }, 2],
    ],
    want: null,
  },
];

for (const c of cases) {
  test(`advanceStream: ${c.name}`, () => {
    const { state, steps } = run(c.inputs);
    assert.deepEqual(steps.at(-1), c.want);
    if (c.resourceVersion !== undefined) assert.equal(state.resourceVersion, c.resourceVersion);
  });
}

test('backoff grows with consecutive failures, is capped at 30 s, and resets after success', () => {
  let state = advanceStream(initialStreamState(0), { type: 'listed', resourceVersion: '1' }, timing, 0, 0.99).state;
  const waits: number[] = [];
  for (let i = 0; i < 12; i++) {
    const r = advanceStream(state, { type: 'failed', failure: 'transient' }, timing, i, 0.99);
    state = r.state;
    if (r.step?.type === 'wait') waits.push(r.step.ms);
  }
  assert.ok(
    waits.every((w, i) => i === 0 || w >= waits[i - 1]!),
    `non-decreasing: ${waits.join(',')}`,
  );
  assert.ok(Math.max(...waits) > 29_000 && Math.max(...waits) <= 30_000, `capped at 30 s: ${Math.max(...waits)}`);
  state = advanceStream(state, { type: 'progressed', resourceVersion: '2' }, timing, 20, 0.99).state;
  const after = advanceStream(state, { type: 'failed', failure: 'transient' }, timing, 21, 0.99);
  assert.deepEqual(after.step, { type: 'wait', ms: 498 });
});

test('the clock: silence past the bound is a stall; bookmarks keep a quiet watch fresh; a waiting stream is never stalled', () => {
  const watching = advanceStream(initialStreamState(0), { type: 'listed', resourceVersion: '1' }, timing, 0, 0.5).state;
  assert.equal(checkStreamClock(watching, timing, 59_000), 'ok');
  assert.equal(checkStreamClock(watching, timing, 60_001), 'stalled');
  const bookmarked = advanceStream(watching, { type: 'progressed', resourceVersion: '1' }, timing, 50_000, 0.5).state;
  assert.equal(checkStreamClock(bookmarked, timing, 100_000), 'ok');
  assert.equal(checkStreamClock(bookmarked, timing, 300_000), 'stalled');
  const waiting = advanceStream(watching, { type: 'failed', failure: 'transient' }, timing, 1, 0.5).state;
  assert.equal(checkStreamClock(waiting, timing, 10_000_000), 'ok');
  // After a long backoff the new request gets the whole stall bound, instead of being declared stalled at once.
  const resumed = advanceStream(waiting, { type: 'waited' }, timing, 200_000, 0.5).state;
  assert.equal(checkStreamClock(resumed, timing, 200_001), 'ok');
  const fresh = advanceStream(watching, { type: 'progressed', resourceVersion: '5' }, timing, 299_000, 0.5).state;
  assert.equal(checkStreamClock(fresh, timing, 300_000), 'relist-due');
});

test('property: lists happen only at start, after a relisting failure, or when the relist period is over; waits never exceed 30 s', () => {
  const input = fc.oneof(
    fc.record({ type: fc.constant('listed' as const), resourceVersion: fc.stringMatching(/^[1-9][0-9]{0,3}$/) }),
    fc.record({ type: fc.constant('progressed' as const), resourceVersion: fc.stringMatching(/^[1-9][0-9]{0,3}$/) }),
    fc.constant({ type: 'watch-ended' as const }),
    fc.constant({ type: 'waited' as const }),
    fc.record({
      type: fc.constant('failed' as const),
      failure: fc.constantFrom(
        'gone' as const,
        'garbled' as const,
        'stalled' as const,
        'relist-due' as const,
        'transient' as const,
      ),
    }),
  );
  fc.assert(
    fc.property(
      fc.array(fc.tuple(input, fc.integer({ min: 0, max: 400_000 }), fc.double({ min: 0, max: 0.999, noNaN: true })), {
        maxLength: 60,
      }),
      (seq) => {
        let state = initialStreamState(0);
        let now = 0;
        for (const [i, dt, random] of seq) {
          now += dt;
          const before = state;
          const r = advanceStream(state, i, timing, now, random);
          state = r.state;
          if (r.step?.type === 'list') {
            const relisting = i.type === 'failed' && i.failure !== 'transient';
            const due = i.type === 'watch-ended' && now - before.lastListAt >= timing.relistMs;
            const noResumePoint = before.resourceVersion === null;
            assert.ok(relisting || due || noResumePoint, `unexpected list after ${JSON.stringify(i)}`);
          }
          if (r.step?.type === 'wait') assert.ok(r.step.ms <= 30_000 && r.step.ms > 0);
          if (r.step?.type === 'watch') assert.ok(r.step.timeoutSeconds >= 300 && r.step.timeoutSeconds <= 600);
        }
      },
    ),
  );
});

test('a kind the server does not serve is synced and empty, waits the recheck period, then lists again', () => {
  const { state, steps } = run([[{ type: 'absent' }, 5]]);
  assert.equal(state.synced, true);
  assert.equal(state.phase, 'waiting');
  assert.equal(state.resourceVersion, null);
  assert.deepEqual(steps, [{ type: 'wait', ms: 30_000 }]);
  assert.equal(checkStreamClock(state, timing, 10_000_000), 'ok', 'a waiting absent kind is never stalled');
  const again = advanceStream(state, { type: 'waited' }, timing, 30_005, 0.5);
  assert.deepEqual(again.step, { type: 'list' });
  const quick = advanceStream(initialStreamState(0), { type: 'absent' }, { ...timing, absentRecheckMs: 200 }, 1, 0.5);
  assert.deepEqual(quick.step, { type: 'wait', ms: 200 });
});
