import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeWatchEvent } from '@portolan/kube-model';
import * as f from '../testing/fixtures.ts';
import { summarize } from '../testing/summary.ts';
import { Planner } from './planner.ts';

const CLASS = f.ingressClass('portolan', 'portolan.dev/ingress-controller');
const fleet = f.fleet([{ name: 'c1' }], [f.appliance('edge', 'haproxy'), f.appliance('lb2', 'haproxy')]);
const web = () =>
  f.ingress({
    name: 'web',
    rules: [f.rule('a.example.com', ['/', 'Prefix', 'web', 80])],
    tls: [{ hosts: ['a.example.com'], secretName: 'cert' }],
  });
const other = f.ingress({
  name: 'other',
  created: f.at(1),
  rules: [f.rule('b.example.com', ['/', 'Prefix', 'web', 80])],
});
const ev = (o: Record<string, unknown>): KubeWatchEvent => ({
  cluster: 'c1',
  kind: o['kind'] as KubeWatchEvent['kind'],
  type: 'ADDED',
  object: o,
});

function planner(): Planner {
  const p = new Planner(fleet);
  for (const o of [CLASS, f.service('web', [[undefined, 80]]), web(), other, f.tlsSecret('cert')]) p.applyEvent(ev(o));
  p.planDirty();
  return p;
}
const lines = (p: Planner, appliance: string): string[] => summarize(p.desiredState(appliance)!);

test('an Ingress the appliance refused is rejected on that appliance only, until it changes', () => {
  const p = planner();
  assert.equal(
    p.refuseObjects({
      appliance: 'edge',
      snapshotId: '7',
      objects: [
        { cluster: 'c1', kind: 'Ingress', namespace: 'default', name: 'web', message: "regex '^2[^]0$' is invalid" },
      ],
    }),
    1,
  );
  const planned = p.planDirty().map((x) => x.appliance);
  assert.deepEqual(planned, ['edge'], 'only the refusing appliance re-plans');
  const edge = lines(p, 'edge');
  assert.ok(edge.includes('Rejected c1/default/web RefusedByAppliance'), edge.join('\n'));
  assert.ok(!edge.some((l) => l.includes('a.example.com')), 'its routes are gone from edge');
  assert.ok(
    edge.some((l) => l.includes('b.example.com')),
    'the other Ingress stays',
  );
  assert.ok(
    lines(p, 'lb2').some((l) => l.includes('a.example.com')),
    'another appliance still serves it',
  );
  assert.equal(
    p.refuseObjects({
      appliance: 'edge',
      snapshotId: '8',
      objects: [
        { cluster: 'c1', kind: 'Ingress', namespace: 'default', name: 'web', message: "regex '^2[^]0$' is invalid" },
      ],
    }),
    0,
    'the same refusal twice changes nothing',
  );
  p.applyEvent(ev(web()));
  p.planDirty();
  assert.ok(
    lines(p, 'edge').some((l) => l.includes('a.example.com')),
    'a new version gets another chance',
  );
});

test('a Secret the appliance refused loses its certificate on that appliance, with a condition on the Ingress', () => {
  const p = planner();
  assert.ok(lines(p, 'edge').some((l) => l.startsWith('cert c1~default~cert')));
  p.refuseObjects({
    appliance: 'edge',
    snapshotId: '9',
    objects: [
      { cluster: 'c1', kind: 'Secret', namespace: 'default', name: 'cert', message: 'unable to load SSL certificate' },
    ],
  });
  p.planDirty();
  const edge = lines(p, 'edge');
  assert.ok(!edge.some((l) => l.startsWith('cert ')), edge.join('\n'));
  assert.ok(edge.includes('Warning c1/default/web InvalidCertificate'));
  assert.match(
    p.desiredState('edge')!.conditions.find((c) => c.reason === 'InvalidCertificate')!.message,
    /appliance edge refused it: unable to load SSL certificate/,
  );
  assert.ok(lines(p, 'lb2').some((l) => l.startsWith('cert c1~default~cert')));
  assert.equal(p.refuseObjects({ appliance: 'nope', snapshotId: '1', objects: [] }), 0);
});
