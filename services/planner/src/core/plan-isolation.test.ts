// A plan that throws — a bug meeting some input — must not freeze the fleet: the appliance whose plan threw keeps
// its last snapshot while every other appliance takes the change, and it recovers, planned over the whole world,
// once the input that broke it is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeWatchEvent } from '@portolan/kube-model';
import * as f from '../testing/fixtures.ts';
import { planEvents, summarize } from '../testing/summary.ts';
import { Planner, type EngineFactory } from './planner.ts';
import { createEngine } from './stages/plan-engine.ts';

const CLASS = f.ingressClass('portolan', 'portolan.dev/ingress-controller');
const fleet = f.fleet([{ name: 'c1' }], [f.appliance('edge', 'haproxy'), f.appliance('lb2', 'haproxy')]);
const site = (name: string, host: string) => f.ingress({ name, rules: [f.rule(host, ['/', 'Prefix', 'web', 80])] });
const event = (type: KubeWatchEvent['type'], o: Record<string, unknown>): KubeWatchEvent => ({
  cluster: 'c1',
  kind: o['kind'] as KubeWatchEvent['kind'],
  type,
  object: o,
});

/** The planner's own engines, but edge's throws while an Ingress named `poison` exists (standing in for a bug). */
const failing: EngineFactory = (profile, clusters, layout) => {
  const engine = createEngine(profile, clusters, layout);
  if (profile.name !== 'edge') return engine;
  const plan = engine.plan.bind(engine);
  engine.plan = (world, dirty) => {
    if ([...world.ingresses('c1')].some((i) => i.metadata.name === 'poison')) throw new TypeError('a bug met poison');
    return plan(world, dirty);
  };
  return engine;
};

test('an appliance whose plan throws keeps its last snapshot; the others go on; it recovers from the whole world', () => {
  const p = new Planner(fleet, { createEngine: failing });
  const step = (...events: KubeWatchEvent[]) => {
    for (const e of events) p.applyEvent(e);
    return { planned: p.planDirty().map((x) => x.appliance), failures: p.takePlanFailures() };
  };
  const objects = [CLASS, f.service('web', [[undefined, 80]]), site('web', 'a.example.com')];
  assert.deepEqual(step(...objects.map((o) => event('ADDED', o))).planned, ['edge', 'lb2']);
  const edgeBefore = summarize(p.desiredState('edge')!);

  const poison = site('poison', 'p.example.com');
  const broken = step(event('ADDED', poison));
  assert.deepEqual(broken.planned, ['lb2'], 'lb2 takes the change; edge plans nothing');
  assert.deepEqual(
    broken.failures.map((x) => [x.appliance, (x.error as Error).message]),
    [['edge', 'a bug met poison']],
  );
  assert.equal(p.planFailing('edge'), true, 'edge holds an empty engine until it plans again');
  assert.equal(p.planFailing('lb2'), false);

  const later = site('later', 'b.example.com');
  const next = step(event('ADDED', later));
  assert.deepEqual(next.planned, ['lb2'], 'still isolated on the next batch');
  assert.equal(next.failures.length, 1);
  assert.ok(summarize(p.desiredState('lb2')!).some((l) => l.includes('b.example.com')));

  const healed = step(event('DELETED', poison));
  assert.deepEqual(healed.failures, []);
  assert.deepEqual(healed.planned, ['edge', 'lb2']);
  assert.equal(p.planFailing('edge'), false);
  const fresh = planEvents(fleet, f.added('c1', ...objects, later), 'edge');
  assert.deepEqual(summarize(p.desiredState('edge')!), summarize(fresh), 'edge equals a plan from scratch');
  assert.notDeepEqual(summarize(p.desiredState('edge')!), edgeBefore, 'and has the change made while it failed');
});
