import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DesiredState, ObjectRef, VirtualService } from '@portolan/desired-state';
import { findRefusedSources } from './find-refused-sources.ts';
import type { ConfigCheck } from './driver.ts';

const ing = (name: string): ObjectRef => ({ cluster: 'c', kind: 'Ingress', namespace: 'ns', name });
const secret = (name: string): ObjectRef => ({ cluster: 'c', kind: 'Secret', namespace: 'ns', name });

/** A state with one listener, a route and a pool per Ingress, and a certificate per Secret. */
function state(ingresses: readonly string[], secrets: readonly string[] = []): DesiredState {
  const vs: VirtualService = {
    name: 'vs',
    address: { kind: 'default' },
    port: 80,
    protocol: 'http',
    owners: ingresses.map(ing),
    certificates: secrets.map((s) => `cert-${s}`),
    routes: ingresses.map((i) => ({
      host: `${i}.example.com`,
      path: '/',
      match: 'Prefix' as const,
      pool: `pool-${i}`,
      source: ing(i),
    })),
    defaultPool: null,
    redirectToHttpsPort: null,
    requestScript: null,
    responseScript: null,
    customization: null,
  };
  return {
    appliance: 'a',
    driver: 'haproxy',
    virtualServices: [vs],
    bindings: [],
    conditions: [],
    pools: ingresses.map((i) => ({
      name: `pool-${i}`,
      members: [],
      monitor: null,
      persistence: null,
      tlsToBackend: false,
      customization: null,
      services: [],
    })),
    certificates: secrets.map((s) => ({ name: `cert-${s}`, secret: secret(s), fingerprint: 'f', hosts: [] })),
  } as DesiredState;
}

/** An appliance check that refuses pools of "bad" Ingresses and certificates of "bad" Secrets (counting its calls). */
function appliance(): { check: (d: DesiredState) => Promise<ConfigCheck>; calls: () => number } {
  let calls = 0;
  return {
    calls: () => calls,
    check: async (d) => {
      calls++;
      const bad = [...d.pools.map((p) => p.name), ...d.certificates.map((c) => c.name)].filter((n) =>
        n.includes('bad'),
      );
      return bad.length === 0 ? { ok: true } : { ok: false, message: `refused ${bad.join(',')}` };
    },
  };
}

test("one bad Ingress among many is found, with the appliance's message", async () => {
  const a = appliance();
  const names = Array.from({ length: 40 }, (_, i) => (i === 17 ? 'bad-17' : `ok-${i}`));
  const r = await findRefusedSources(state(names), a.check);
  assert.deepEqual(
    r?.map((c) => [c.ref.name, c.message]),
    [['bad-17', 'refused pool-bad-17']],
  );
  assert.ok(a.calls() <= 16, `${a.calls()} checks for 40 sources`);
});

test('several culprits of two kinds: Ingresses and Secrets', async () => {
  const r = await findRefusedSources(state(['a', 'bad-b', 'c', 'bad-d'], ['s1', 'bad-s2']), appliance().check);
  assert.deepEqual(r?.map((c) => `${c.ref.kind}/${c.ref.name}`).sort(), [
    'Ingress/bad-b',
    'Ingress/bad-d',
    'Secret/bad-s2',
  ]);
});

test('nothing to isolate: a configuration refused without any source, or accepted as a whole', async () => {
  const broken = async (): Promise<ConfigCheck> => ({ ok: false, message: 'global section broken' });
  assert.equal(await findRefusedSources(state(['a', 'b']), broken), null);
  assert.equal(await findRefusedSources(state(['a', 'b']), appliance().check), null);
});

test('two objects refused only together: one of them is refused, which is enough', async () => {
  const pair = async (d: DesiredState): Promise<ConfigCheck> => {
    const names = new Set(d.pools.map((p) => p.name));
    return names.has('pool-x') && names.has('pool-y') ? { ok: false, message: 'x and y clash' } : { ok: true };
  };
  const r = await findRefusedSources(state(['w', 'x', 'y', 'z']), pair);
  assert.deepEqual(
    r?.map((c) => c.ref.name),
    ['y'],
  );
});
