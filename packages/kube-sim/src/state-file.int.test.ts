import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { startKubeSim } from './index.ts';
import { call, openWatch } from './testing/sim-client.ts';

it('persists objects to the state file and restores them (same uid and resourceVersion) after a restart', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'kube-sim-state-'));
  const statePath = path.join(dir, 'state.json');
  try {
    const first = await startKubeSim({ statePath, persistDebounceMs: 10 });
    const created = first.objects.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kept', namespace: 'default' },
      data: { a: '1' },
    });
    const oldRv = Number(created.metadata?.resourceVersion) - 1;
    await first.close();
    assert.equal((await stat(statePath)).mode & 0o777, 0o600, 'the state file holds Secret data: owner-only');
    const second = await startKubeSim({ statePath });
    try {
      const got = await call(second, 'GET', '/api/v1/namespaces/default/configmaps/kept');
      assert.equal(got.body.metadata.uid, created.metadata?.uid);
      assert.equal(got.body.metadata.resourceVersion, created.metadata?.resourceVersion);
      const next = second.objects.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'later', namespace: 'default' },
      });
      assert.ok(
        Number(next.metadata?.resourceVersion) > Number(created.metadata?.resourceVersion),
        'resourceVersions keep growing across restarts',
      );
      const watch = openWatch(second, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${oldRv}`);
      await watch.ended;
      assert.equal(
        (watch.lines[0] as { object: { code: number } }).object.code,
        410,
        'history before the restart is gone',
      );
    } finally {
      await second.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
