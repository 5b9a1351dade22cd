// The history checker's own test: it must catch a superseded leader writing to an appliance that has no
// compare-and-set. Two appliers of one vTM group; the lease key vanishes from Redis (an eviction, a flush) right
// after the leader renewed it, so the other replica is granted a new epoch and acts while the old leader, whose
// own clock still says it leads, keeps acting until its next renewal fails. Two changes follow in that window.
// With the applier as it is, the old leader's epoch check finds the newer epoch and it sends nothing: the checker
// finds no violation. With a mutant applier that skips the epoch check before a write (tests/ha/mutations), the old
// leader's writes land after the new leader's, and the checker, reading the appliance's audit log, fails the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { testStack } from '@portolan/infra';
import { leaseKey } from '@portolan/leadership';
import { eventually } from '../e2e/eventually.ts';
import { endpointSlice, ingress, ingressClass, namespace, service } from '../e2e/manifests.ts';
import { startPipeline, type Pipeline } from '../e2e/pipeline-harness.ts';
import { checkRecords, formatViolations, readApplianceWrites, type Violation } from './history-checker.ts';

const mutation = path.join(import.meta.dirname, 'mutations', 'skip-epoch-check.ts');
const ns = 'fence';
// Renewals 6 s apart: the old leader acts for up to 6 s after its key is gone, time for two changes.
const leases = { ttlMs: 20_000, renewEveryMs: 6000, retryEveryMs: 100 };

/** Runs the scenario on a fresh pipeline (the mutant applier or not); returns what the checker found. */
async function scenario(mutant: boolean): Promise<{ violations: Violation[]; fencedApplies: number; p: Pipeline }> {
  const p = await startPipeline({
    appliances: [
      {
        name: 'vtm',
        driver: 'vtm',
        ingressControllers: ['pulsesecure.net/vtm-ingress-controller'],
        replicas: ['vtm-a', 'vtm-b'],
      },
    ],
    leases,
    ...(mutant ? { env: { NODE_OPTIONS: `--import=${mutation}` } } : {}),
  });
  const group = p.appliance('vtm');
  const redis = new Redis((await testStack()).redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await p.apply(
      [
        namespace(ns),
        ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller'),
        service(ns, 'web', 8080),
        endpointSlice(ns, 'web', ['10.7.0.1'], 8080),
        ingress(ns, 'web', {
          className: 'vtm',
          rules: [{ host: 'fence.example', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
        }),
      ].join(''),
    );
    await p.settled('vtm', 60_000);
    const first = await eventually('a leader with its epoch', async () => {
      const l = await p.leader('vtm');
      assert.ok(l.holder !== null && l.epoch !== null);
      return { holder: l.holder, epoch: l.epoch };
    });
    await loseKeyAfterRenewal(redis, leaseKey('portolan:', group), leases.ttlMs);
    await eventually('the other replica granted a newer epoch', async () => {
      const l = await p.leader('vtm');
      assert.ok(l.holder !== null && l.holder !== first.holder && (l.epoch ?? 0) > first.epoch);
    });
    // Within the old leader's window: two changes, the second once the new leader has written the first.
    await p.apply(endpointSlice(ns, 'web', ['10.7.0.1', '10.7.0.2'], 8080));
    await eventually('the new leader wrote the first change', () => {
      const writes = readApplianceWrites(p.vtmAuditLog);
      assert.ok(writes.some((w) => w.epoch !== null && w.epoch > first.epoch));
    });
    await p.apply(endpointSlice(ns, 'web', ['10.7.0.1', '10.7.0.2', '10.7.0.3'], 8080));
    await p.settled('vtm', 60_000);
    await sleep(leases.renewEveryMs); // the old leader's window is over: whatever it sent has landed
    const fenced = await p.db
      .selectFrom('applies')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('appliance', '=', group)
      .where('status', '=', 'fenced')
      .executeTakeFirstOrThrow();
    const violations = await checkRecords(p.db, group, group, { log: p.vtmAuditLog });
    return { violations, fencedApplies: Number(fenced.n), p };
  } catch (e) {
    await p.stop();
    throw e;
  } finally {
    redis.disconnect();
  }
}

/** Deletes the lease key just after the holder renewed it (its time to live jumped back up). */
async function loseKeyAfterRenewal(redis: Redis, key: string, ttlMs: number): Promise<void> {
  let previous = await redis.pttl(key);
  for (const deadline = Date.now() + 3 * ttlMs; Date.now() < deadline;) {
    await sleep(20);
    const now = await redis.pttl(key);
    if (now > previous + 500) {
      assert.equal(await redis.del(key), 1, 'the lease key was there to lose');
      return;
    }
    previous = now;
  }
  assert.fail(`the lease ${key} was never renewed`);
}

test('the checker passes the applier as it is and fails a mutant that skips the epoch check before a write', async () => {
  const sound = await scenario(false);
  try {
    assert.deepEqual(sound.violations, [], formatViolations(sound.violations));
    assert.ok(sound.fencedApplies > 0, 'the old leader tried to apply and was fenced: the scenario reached the fence');
  } finally {
    await sound.p.stop();
  }
  const mutant = await scenario(true);
  try {
    const applierLogs = ['applier-vtm-a', 'applier-vtm-b'].map((n) => mutant.p.process(n).log()).join('\n');
    assert.match(applierLogs, /mutation: .*the epoch check before a write is skipped/, 'the mutant ran');
    assert.deepEqual(
      [...new Set(mutant.violations.map((v) => v.rule))],
      ['appliance-epoch-regressed'],
      formatViolations(mutant.violations),
    );
    process.stdout.write(
      `# the checker on the mutant:\n${formatViolations(mutant.violations).replace(/^/gm, '#   ')}\n`,
    );
  } finally {
    await mutant.p.stop();
  }
});
