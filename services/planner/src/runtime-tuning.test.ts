import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tunedExecution } from '@portolan/telemetry';
import { plannerTuning } from './runtime-tuning.ts';

test('on one CPU the planner collects garbage on its own thread; with more it keeps the default collector', () => {
  assert.deepEqual(plannerTuning(1).flags, ['--single-threaded-gc']);
  assert.deepEqual(plannerTuning(2).flags, []);
  assert.deepEqual(plannerTuning(64).flags, []);
});

test('the tuned planner runs with its flags before the entry point and marks itself tuned', () => {
  const { argv, env } = tunedExecution(plannerTuning(1), 'main.ts', ['--config', 'f.yaml'], [], {});
  assert.deepEqual(argv.slice(1), ['--single-threaded-gc', 'main.ts', '--config', 'f.yaml']);
  assert.equal(env['PORTOLAN_PLANNER_RUNTIME'], 'tuned');
});
