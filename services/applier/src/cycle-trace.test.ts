import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemorySpanExporter, startTracing } from '@portolan/telemetry';
import { applierSpanAttributes as A, traceCycle, traceDriftRead } from './cycle-trace.ts';

const exporter = new InMemorySpanExporter();
const tracing = startTracing('applier', { exporter, batch: false });
const plannerTrace = 'c'.repeat(32);
const commitSpan = 'd'.repeat(16);

test('a cycle continues the announced trace; each appliance call is its child, naming appliance, snapshot, epoch', async () => {
  exporter.reset();
  const start = {
    appliance: 'lb1',
    snapshotId: '42',
    trigger: 'snapshot',
    epoch: 7,
    parent: { traceparent: `00-${plannerTrace}-${commitSpan}-01` },
  };
  const result = await traceCycle(
    tracing.tracer,
    'applier.cycle',
    start,
    async (spans) => {
      await spans.readBack(async () => ({}));
      return spans.call(
        'applier.execute',
        async () => ({ ok: false, code: 'E', message: 'refused' }),
        {},
        (r) => (r.ok ? null : r.message),
      );
    },
    () => 'failed',
  );
  assert.equal(result.ok, false);
  const [readBack, execute, cycle] = exporter.getFinishedSpans();
  assert.equal(cycle!.name, 'applier.cycle');
  assert.equal(cycle!.spanContext().traceId, plannerTrace);
  assert.equal(cycle!.parentSpanContext?.spanId, commitSpan);
  assert.equal(cycle!.attributes[A.result], 'failed');
  for (const call of [readBack!, execute!]) {
    assert.equal(call.parentSpanContext?.spanId, cycle!.spanContext().spanId);
    assert.equal(call.attributes[A.appliance], 'lb1');
    assert.equal(call.attributes[A.snapshot], '42');
    assert.equal(call.attributes[A.epoch], 7);
  }
  assert.deepEqual(
    [readBack!.name, execute!.name, execute!.status.message],
    ['applier.read-back', 'applier.execute', 'refused'],
  );
});

test('without an announced trace, and for a drift check, the cycle starts a trace of its own', async () => {
  exporter.reset();
  await traceDriftRead(tracing.tracer, { appliance: 'lb1', snapshotId: null, epoch: 3 }, async () => ({}));
  const [read, check] = exporter.getFinishedSpans();
  assert.equal(check!.name, 'applier.drift-check');
  assert.equal(check!.parentSpanContext, undefined);
  assert.equal(read!.parentSpanContext?.spanId, check!.spanContext().spanId);
});
