import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NoRespondersError, RequestError, TimeoutError } from '@nats-io/nats-core';
import { JetStreamApiError } from '@nats-io/jetstream';
import { BusError } from './nats-event-bus.ts';
import { isTransientJetStreamError, provisionPatiently } from './patient-provision.ts';

const unavailable = (): JetStreamApiError =>
  new JetStreamApiError({ code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' });
const badConfig = (): JetStreamApiError =>
  new JetStreamApiError({
    code: 400,
    err_code: 10052,
    description: 'replicas > 1 not supported in non-clustered mode',
  });

/** A clock that only moves when the code under test sleeps. */
function fakeTime(): { now: () => number; sleep: (ms: number) => Promise<void>; pauses: number[] } {
  let t = 0;
  const pauses: number[] = [];
  return {
    now: () => t,
    sleep: async (ms) => {
      pauses.push(ms);
      t += ms;
    },
    pauses,
  };
}

test('transient: timeouts and 10008, also wrapped in a BusError', () => {
  assert.equal(isTransientJetStreamError(new TimeoutError()), true);
  assert.equal(isTransientJetStreamError(unavailable()), true);
  assert.equal(
    isTransientJetStreamError(new BusError('BUS_PROVISION_FAILED', 'stream KUBE', { cause: unavailable() })),
    true,
  );
});

test('not transient: no JetStream on the server, a refused configuration, a plain error, a non-error', () => {
  const noResponders = new RequestError('no responders', { cause: new NoRespondersError('$JS.API.INFO') });
  assert.equal(isTransientJetStreamError(new Error('jetstream is not enabled', { cause: noResponders })), false);
  assert.equal(isTransientJetStreamError(badConfig()), false);
  assert.equal(isTransientJetStreamError(new BusError('BUS_PROVISION_FAILED', 'x', { cause: badConfig() })), false);
  assert.equal(isTransientJetStreamError(new Error('boom')), false);
  assert.equal(isTransientJetStreamError('10008'), false);
});

test('rides through 10008 and timeouts, backing off 250 ms doubling to 2 s', async () => {
  const time = fakeTime();
  const failures = [unavailable(), new TimeoutError(), unavailable(), unavailable(), unavailable(), unavailable()];
  let calls = 0;
  const result = await provisionPatiently(
    async () => {
      calls++;
      const f = failures.shift();
      if (f !== undefined) throw f;
      return 'bus';
    },
    { now: time.now, sleep: time.sleep },
  );
  assert.equal(result, 'bus');
  assert.equal(calls, 7);
  assert.deepEqual(time.pauses, [250, 500, 1000, 2000, 2000, 2000]);
});

test('a refused configuration fails at once', async () => {
  const time = fakeTime();
  let calls = 0;
  await assert.rejects(
    provisionPatiently(
      async () => {
        calls++;
        throw badConfig();
      },
      { now: time.now, sleep: time.sleep },
    ),
    (e: unknown) => e instanceof JetStreamApiError && e.code === 10052,
  );
  assert.equal(calls, 1);
});

test('a cluster unavailable past the deadline fails with its last error', async () => {
  const time = fakeTime();
  let calls = 0;
  await assert.rejects(
    provisionPatiently(
      async () => {
        calls++;
        throw unavailable();
      },
      { now: time.now, sleep: time.sleep, deadlineMs: 10_000 },
    ),
    /temporarily unavailable/,
  );
  assert.ok(time.now() <= 10_000, `slept past the deadline: ${time.now()} ms`);
  assert.ok(calls >= 6, `gave up after ${calls} attempts`);
});
