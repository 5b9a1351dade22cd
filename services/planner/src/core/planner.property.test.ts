import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson } from '@portolan/desired-state';
import type { KubeWatchEvent } from '@portolan/kube-model';
import { eventsOf, historyArb, ingressArb, PROPERTY_FLEET } from '../testing/world-arbitrary.ts';
import { summarize } from '../testing/summary.ts';
import * as f from '../testing/fixtures.ts';
import { Planner } from './planner.ts';
import { planFromScratch } from './plan-from-scratch.ts';

const APPLIANCES = PROPERTY_FLEET.appliances.map((a) => a.name);

function roots(p: Planner): Record<string, string | null> {
  return Object.fromEntries(APPLIANCES.map((a) => [a, p.rootOf(a)]));
}

function run(events: readonly KubeWatchEvent[]): Planner {
  const p = new Planner(PROPERTY_FLEET);
  for (const e of events) p.applyEvent(e);
  p.planDirty();
  return p;
}

// A failure prints fast-check's seed and path: SEED=<seed> FCPATH=<path> replays exactly that counterexample.
test('property: incremental planning equals the full recompute after any event sequence (state and snapshot hash)', () => {
  fc.assert(
    fc.property(historyArb, (steps) => {
      const p = new Planner(PROPERTY_FLEET);
      const events = eventsOf(steps);
      const prelude = events.length - steps.length;
      const check = (): void => {
        const scratch = planFromScratch(p.world, PROPERTY_FLEET);
        for (const a of APPLIANCES) {
          const inc = p.desiredState(a)!;
          const full = scratch.get(a)!;
          if (canonicalJson(inc) !== canonicalJson(full.desired))
            assert.deepEqual(
              summarize(inc, { messages: true }),
              summarize(full.desired, { messages: true }),
              `appliance ${a}`,
            );
          assert.equal(
            p.rootOf(a),
            full.root,
            `appliance ${a}: incremental snapshot root equals the from-scratch encoding`,
          );
        }
      };
      for (const e of events.slice(0, prelude)) p.applyEvent(e);
      steps.forEach((s, i) => {
        p.applyEvent(events[prelude + i]!);
        if (s.plan) {
          p.planDirty();
          check();
        }
      });
      p.planDirty();
      check();
    }),
    {
      numRuns: Number(process.env['PROPERTY_RUNS'] ?? 150),
      ...(process.env['SEED'] ? { seed: Number(process.env['SEED']), path: process.env['FCPATH'] } : {}),
    },
  );
});

test('property: the same final state in any event order (resourceVersion decides, not arrival)', () => {
  fc.assert(
    fc.property(
      historyArb.chain((steps) =>
        fc.tuple(
          fc.constant(eventsOf(steps)),
          fc.shuffledSubarray(eventsOf(steps), { minLength: eventsOf(steps).length }),
        ),
      ),
      ([inOrder, shuffled]) => {
        assert.deepEqual(roots(run(shuffled)), roots(run(inOrder)));
      },
    ),
    { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 150) },
  );
});

test('property: duplicated and redelivered events give the same hashes', () => {
  fc.assert(
    fc.property(
      historyArb.chain((steps) => {
        const events = eventsOf(steps);
        return fc.tuple(
          fc.constant(events),
          fc.array(fc.nat(events.length - 1), { maxLength: 20 }),
          fc.nat(events.length - 1),
        );
      }),
      ([events, dupes, replayFrom]) => {
        const once = roots(run(events));
        const p = new Planner(PROPERTY_FLEET);
        for (const e of events) {
          p.applyEvent(e);
          p.applyEvent(e);
        }
        for (const i of dupes) p.applyEvent(events[i]!);
        p.planDirty();
        for (const e of events.slice(replayFrom)) p.applyEvent(e);
        const again = p.planDirty();
        assert.deepEqual(roots(p), once);
        assert.deepEqual(again, [], 'redelivery plans nothing new');
      },
    ),
    { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 150) },
  );
});

test('property (isolation): the planner never throws, and valid Ingresses plan identically with invalid ones present', () => {
  const base = f.added(
    'c1',
    f.ingressClass('portolan', 'portolan.dev/ingress-controller'),
    f.ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller'),
    f.service('s1', [[undefined, 80]], { namespace: 'n1' }),
    f.slice('s1-0', 's1', undefined, 8080, [['10.1.0.1']], { namespace: 'n1' }),
  );
  fc.assert(
    fc.property(
      fc.array(ingressArb(false), { maxLength: 4 }),
      fc.array(ingressArb(true), { minLength: 1, maxLength: 4 }),
      (valid, invalid) => {
        let rv = 5000;
        const named = (make: (rv: string) => Record<string, unknown>, prefix: string, i: number) => {
          const o = make(String(rv++));
          (o['metadata'] as Record<string, unknown>)['name'] = `${prefix}${i}`;
          return { cluster: 'c1', kind: 'Ingress' as const, type: 'ADDED' as const, object: o };
        };
        const good = valid.map((m, i) => named(m, 'good', i));
        const bad = invalid.map((m, i) => named(m, 'bad', i));
        const alone = run([...base, ...good]);
        const mixed = run([...base, ...bad, ...good]);
        for (const a of APPLIANCES) {
          const withBad = mixed.desiredState(a)!;
          const rejected = new Set(
            withBad.conditions
              .filter((c) => c.type === 'Rejected' && c.object.name.startsWith('bad'))
              .map((c) => c.object.name),
          );
          const badNames = new Set(
            bad.map((e) =>
              String(((e.object as Record<string, unknown>)['metadata'] as Record<string, unknown>)['name']),
            ),
          );
          for (const c of withBad.conditions)
            if (badNames.has(c.object.name))
              assert.ok(rejected.has(c.object.name), `${c.object.name} is rejected with a reason (${c.reason})`);
          const withoutBad = { ...withBad, conditions: withBad.conditions.filter((c) => !badNames.has(c.object.name)) };
          assert.equal(canonicalJson(withoutBad), canonicalJson(alone.desiredState(a)!), `appliance ${a}`);
        }
      },
    ),
    { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 150) },
  );
});
