import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DesiredState, ObjectRef, VirtualService } from '@portolan/desired-state';
import { ingressStatusTargets } from './ingress-status.ts';

const ing = (name: string): ObjectRef => ({ cluster: 'c1', kind: 'Ingress', namespace: 'default', name });
const vs = (name: string, address: VirtualService['address'], owners: ObjectRef[], port = 80): VirtualService => ({
  name,
  address,
  port,
  protocol: 'http',
  owners,
  certificates: [],
  routes: [],
  defaultPool: null,
  redirectToHttpsPort: null,
  requestScript: null,
  responseScript: null,
  customization: null,
});
const desired = (virtualServices: VirtualService[]): DesiredState => ({
  appliance: 'vtm',
  driver: 'vtm',
  virtualServices,
  pools: [],
  certificates: [],
  bindings: [],
  conditions: [],
});

const TABLE: { name: string; defaultAddress: string | readonly string[] | null; want: [string, string[]][] }[] = [
  {
    name: 'one configured address (HAProxy, LoadMaster)',
    defaultAddress: '127.0.0.1',
    want: [
      ['api', ['10.9.0.1']],
      ['shop', ['127.0.0.1']],
      ['tls', ['127.0.0.1']],
    ],
  },
  {
    name: 'every address of the default traffic IP group (vTM, as read back)',
    defaultAddress: ['192.0.2.11', '192.0.2.10'],
    want: [
      ['api', ['10.9.0.1']],
      ['shop', ['192.0.2.10', '192.0.2.11']],
      ['tls', ['192.0.2.10', '192.0.2.11']],
    ],
  },
  {
    name: 'a group read back with no addresses: the default listeners are skipped',
    defaultAddress: [],
    want: [['api', ['10.9.0.1']]],
  },
  { name: 'no known address: the default listeners are skipped', defaultAddress: null, want: [['api', ['10.9.0.1']]] },
];

for (const row of TABLE) {
  test(`Ingress status from the default address: ${row.name}`, () => {
    const d = desired([
      vs('default~80', { kind: 'default' }, [ing('shop')]),
      vs('default~443', { kind: 'default' }, [ing('tls')], 443),
      vs('10.9.0.1~80', { kind: 'dedicated', ip: '10.9.0.1' }, [ing('api')]),
    ]);
    const got = ingressStatusTargets(d, row.defaultAddress).map((t) => [
      t.ref.name,
      t.entries.map((e) => e.ip ?? e.hostname ?? ''),
    ]);
    assert.deepEqual(got, row.want);
  });
}
