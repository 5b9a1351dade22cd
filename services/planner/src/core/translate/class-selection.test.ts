// Regression for a report of "rejected by appliance edge: NoBackends" on a vtm-class Ingress: with an HAProxy
// appliance answering portolan.dev/ingress-controller beside a vTM, the planner never puts a vtm-class Ingress (by
// field or legacy annotation, valid or not, created, re-classed or with its IngressClass arriving late) in edge's
// desired state. The Event came from the applier (no uid, holds claimed per cluster), not from planning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeWatchEvent } from '@portolan/kube-model';
import * as f from '../../testing/fixtures.ts';
import { Planner } from '../planner.ts';
import { planFromScratch } from '../plan-from-scratch.ts';
import { summarize } from '../../testing/summary.ts';

const config = f.fleet(
  [{ name: 'c1' }],
  [
    f.appliance('edge', 'haproxy', { ingressControllers: ['portolan.dev/ingress-controller'] }),
    f.appliance('vtm', 'vtm', { ingressControllers: ['pulsesecure.net/vtm-ingress-controller'] }),
  ],
);
const portolan = f.ingressClass('portolan', 'portolan.dev/ingress-controller', true);
const vtm = f.ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller');
const modified = (object: Record<string, unknown>): KubeWatchEvent => ({
  cluster: 'c1',
  kind: 'Ingress',
  type: 'MODIFIED',
  object,
});
const conditionLines = (p: Planner, appliance: string): string[] =>
  summarize(p.desiredState(appliance)!).filter((l) => /^(Rejected|Accepted|Warning) /.test(l));

test('a vtm-class Ingress is never planned on edge: conditions on vtm only, incrementally and from scratch', () => {
  const rows: { name: string; steps: KubeWatchEvent[][]; vtm: string[] }[] = [
    {
      name: 'no rules',
      steps: [f.added('c1', portolan, vtm, f.ingress({ name: 'a', className: 'vtm' }))],
      vtm: ['Rejected c1/default/a NoBackends'],
    },
    {
      name: 'legacy annotation',
      steps: [
        f.added(
          'c1',
          portolan,
          vtm,
          f.ingress({ name: 'a', className: null, annotations: { 'kubernetes.io/ingress.class': 'vtm' } }),
        ),
      ],
      vtm: ['Rejected c1/default/a NoBackends'],
    },
    {
      name: 'classes arrive after the Ingress',
      steps: [f.added('c1', f.ingress({ name: 'a', className: 'vtm' })), f.added('c1', portolan, vtm)],
      vtm: ['Rejected c1/default/a NoBackends'],
    },
    {
      name: 'moved from portolan (rejected on edge) to vtm with rules',
      steps: [
        f.added(
          'c1',
          portolan,
          vtm,
          f.service('web', [[undefined, 80]]),
          f.ingress({ name: 'a', className: 'portolan' }),
        ),
        [
          modified(
            f.ingress({
              name: 'a',
              className: 'vtm',
              annotations: { 'vtm.pulsesecure.net/ip-address': '10.0.0.9' },
              rules: [f.rule('a.example.com', ['/', 'Prefix', 'web', 80])],
            }),
          ),
        ],
      ],
      vtm: ['Accepted c1/default/a Planned'],
    },
  ];
  for (const row of rows) {
    const p = new Planner(config);
    for (const step of row.steps) {
      for (const e of step) p.applyEvent(e);
      p.planDirty();
    }
    assert.deepEqual(conditionLines(p, 'edge'), [], row.name);
    assert.deepEqual(conditionLines(p, 'vtm'), row.vtm, row.name);
    const scratch = planFromScratch(p.world, config);
    assert.deepEqual(scratch.get('edge')!.desired.conditions, [], `${row.name}: from scratch`);
  }
});
