// The shared setup of the fidelity suites: one simulator with a `fid` namespace, and ConfigMaps to write into it.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeSim, type KubeSim } from '../start-kube-sim.ts';

/** A ConfigMap named `name` in `ns`, with `labels` and one data key. */
export const cm = (name: string, labels: Record<string, string> = {}, ns = 'fid') => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, labels },
  data: { k: name },
});

/** The ConfigMaps collection path of a namespace. */
export const cmPath = (ns = 'fid') => `/api/v1/namespaces/${ns}/configmaps`;

/** Registers the file's before/after hooks; `sim` is the running simulator once `before` ran. */
export function fidelityFixture(): { readonly sim: KubeSim } {
  let sim: KubeSim | undefined;
  before(async () => {
    sim = await startKubeSim({ bookmarkIntervalMs: 100 });
    sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fid' } });
  });
  after(() => sim?.close());
  return {
    get sim() {
      assert.ok(sim !== undefined, 'the simulator is used before its before() hook ran');
      return sim;
    },
  };
}
