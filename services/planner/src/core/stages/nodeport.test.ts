// NodePort mode (the documented vTM data path): members are Ready nodes × the Service's nodePort.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApplianceConfig } from '@portolan/fleet-config';
import * as f from '../../testing/fixtures.ts';
import { planEvents, summarize } from '../../testing/summary.ts';
import { Planner } from '../planner.ts';
import { poolNameOf } from '../translate/ingress-intent.ts';
import { vtmPersistence } from '../translate/annotation-schemas.ts';

const vtmNodePort = (extra: Partial<ApplianceConfig> = {}) =>
  f.fleet([{ name: 'c1' }], [{ ...f.appliance('lb', 'vtm', { backendMode: 'nodeport' }), ...extra }]);
const VTM_CLASS = f.ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller');
const NODES = [f.node('n1', '192.168.0.1'), f.node('n2', '192.168.0.2'), f.node('n3', '192.168.0.3', false)];
const vtmIngress = (annotations: Record<string, string> = {}) =>
  f.ingress({
    name: 'web',
    className: 'vtm',
    annotations: { 'vtm.pulsesecure.net/ip-address': '10.0.0.9', ...annotations },
    rules: [f.rule('a.example.com', ['/', 'Prefix', 'web', 80])],
  });

test('NodePort mode (the documented vTM data path): Ready nodes × nodePort; NotReady nodes are left out', () => {
  const d = planEvents(
    vtmNodePort(),
    f.added(
      'c1',
      VTM_CLASS,
      ...NODES,
      vtmIngress(),
      f.service('web', [[undefined, 80, 30080]], { type: 'NodePort' }),
      f.slice('web-1', 'web', undefined, 8080, [['10.1.0.1', true, true, false, 'n1']]),
    ),
  );
  assert.deepEqual(
    summarize(d).filter((l) => l.startsWith('pool') || l.startsWith('Accepted') || l.startsWith('Warning')),
    ['pool default~web~80 monitor=tcp [192.168.0.1:30080@c1 192.168.0.2:30080@c1]', 'Accepted c1/default/web Planned'],
  );
});

test('NodePort mode: a ClusterIP Service has no data path: warned, pool empty', () => {
  const d = planEvents(
    vtmNodePort(),
    f.added('c1', VTM_CLASS, ...NODES, vtmIngress(), f.service('web', [[undefined, 80]])),
  );
  assert.deepEqual(
    summarize(d).filter((l) => l.startsWith('pool') || l.startsWith('Warning')),
    ['pool default~web~80 monitor=tcp []', 'Warning c1/default/web NotNodePortService'],
  );
});

test('NodePort mode: persistence without externalTrafficPolicy Local is warned (as vTM documents); with Local only nodes running endpoints serve', () => {
  const persistence = '{"properties":{"basic":{"type":"ip"}}}';
  const pool = poolNameOf(
    'default',
    { service: 'web', port: 80 },
    {
      monitor: null,
      persistence: vtmPersistence({ properties: { basic: { type: 'ip' } } }) as never,
      tlsToBackend: false,
      customization: null,
    },
  );
  const objects = (policy?: string) =>
    f.added(
      'c1',
      VTM_CLASS,
      ...NODES,
      vtmIngress({ 'vtm.pulsesecure.net/persistence': persistence }),
      f.service('web', [[undefined, 80, 30080]], {
        type: 'NodePort',
        ...(policy ? { externalTrafficPolicy: policy } : {}),
      }),
      f.slice('web-1', 'web', undefined, 8080, [
        ['10.1.0.1', true, true, false, 'n2'],
        ['10.1.0.2', false, true, true, 'n3'],
      ]),
    );
  const cluster = summarize(planEvents(vtmNodePort(), objects('Cluster')));
  assert.deepEqual(
    cluster.filter((l) => l.startsWith('pool') || l.startsWith('Warning')),
    [
      `pool ${pool} monitor=tcp persist=source-ip [192.168.0.1:30080@c1 192.168.0.2:30080@c1]`,
      'Warning c1/default/web AffinityNeedsLocalTrafficPolicy',
    ],
  );
  const local = summarize(planEvents(vtmNodePort(), objects('Local')));
  assert.deepEqual(
    local.filter((l) => l.startsWith('pool') || l.startsWith('Warning')),
    [`pool ${pool} monitor=tcp persist=source-ip [192.168.0.2:30080@c1]`],
  );
});

test('NodePort mode: a node going NotReady drops its member on the next plan', () => {
  const p = new Planner(vtmNodePort());
  for (const e of f.added(
    'c1',
    VTM_CLASS,
    ...NODES,
    vtmIngress(),
    f.service('web', [[undefined, 80, 30080]], { type: 'NodePort' }),
  ))
    p.applyEvent(e);
  p.planDirty();
  p.applyEvent({ cluster: 'c1', kind: 'Node', type: 'MODIFIED', object: f.node('n1', '192.168.0.1', false) });
  const [plan] = p.planDirty();
  assert.deepEqual(
    summarize(plan!.desired).filter((l) => l.startsWith('pool')),
    ['pool default~web~80 monitor=tcp [192.168.0.2:30080@c1]'],
  );
});
