// `portolan status` on real NATS and Postgres: a planner that stops while the watcher's heartbeats keep flowing is
// named as the planner (not as a stale watch); a silent watcher is named as the watch; a store that does not answer
// is said to be unreachable, with a non-zero exit, instead of a crash.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { busDeclaration, NatsEventBus } from '@portolan/bus';
import { loadFleetConfig } from '@portolan/fleet-config';
import { freePort, testStack } from '@portolan/infra';
import { PgPlannerStore, PlannerService } from '@portolan/planner';
import { createTestDatabase, sql, type TestDatabase } from '@portolan/store';
import { createLogger } from '@portolan/telemetry';
import { auditCommands, type CommandIo, type StatusReport } from '@portolan/audit';
import { heartbeat, listMarkers, type OutboundKubeMessage } from './kube-messages.ts';

let dir: string;
let tdb: TestDatabase;
let bus: NatsEventBus;
let configFile: string;
let stream: string;
let natsUrl: string;
let redisUrl: string;
const silent = createLogger('status-test', { destination: new Writable({ write: (_c, _e, done) => done() }) });

const fleetYaml = (postgresUrl: string): string => `version: 1
clusters:
  - name: c1
    staleAfterSeconds: 60
appliances:
  - name: edge
    driver: haproxy
    haproxy: { configDir: haproxy, masterSocket: haproxy/master.sock }
bus: { url: "${natsUrl}", stream: ${stream}, subjectPrefix: ${stream} }
store: { url: "${postgresUrl}" }
leases: { redisUrl: "${redisUrl}" }
secrets: { keyFile: fleet.key }
`;

async function status(file: string): Promise<{ code: number; report: StatusReport; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    stdinIsTty: false,
    stderrIsTty: false,
    ask: async () => '',
    now: () => new Date(),
    env: {},
    cwd: dir,
  };
  const code = await auditCommands.status(['--config', file, '-o', 'json'], io);
  return { code, report: JSON.parse(stdout) as StatusReport, stderr };
}

async function publish(messages: readonly OutboundKubeMessage[]): Promise<number> {
  let last = 0;
  for (const m of messages) last = (await bus.publish(m.subject, m.data, { msgId: m.msgId })).seq;
  return last;
}

before(async () => {
  const stack = await testStack();
  natsUrl = stack.natsUrl;
  redisUrl = stack.redisUrl;
  stream = `STATUS_${randomBytes(4).toString('hex')}`;
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'portolan-status-'));
  await fs.writeFile(path.join(dir, 'fleet.key'), randomBytes(32).toString('hex'));
  tdb = await createTestDatabase(stack.postgresUrl);
  configFile = path.join(dir, 'fleet.yaml');
  await fs.writeFile(configFile, fleetYaml(tdb.url));
  bus = await NatsEventBus.open(
    natsUrl,
    busDeclaration({ stream, replicas: 1, maxPayloadBytes: 1 << 20, subjectPrefix: stream }),
  );
});

after(async () => {
  await bus.jsm.streams.delete(bus.declaration.kube.name).catch(() => undefined);
  await bus.jsm.streams.delete(bus.declaration.pipeline.name).catch(() => undefined);
  await bus.close().catch(() => undefined);
  await tdb.drop().catch(() => undefined);
  await fs.rm(dir, { recursive: true, force: true });
});

test('the planner stops while heartbeats keep flowing: status names the planner, not the watch', async () => {
  // The planner folds the initial lists and a heartbeat sent 90 s ago, then stops.
  const fleet = await loadFleetConfig(configFile);
  const planner = new PlannerService({
    store: new PgPlannerStore(tdb.db),
    bus,
    config: fleet.config,
    fleetConfigHash: fleet.hash,
    log: silent,
    metrics: null,
  });
  await planner.recover();
  const target = await publish([
    heartbeat('c1', Date.now() - 90_000),
    ...listMarkers('c1', {}, '1', Date.now() - 90_000),
  ]);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 20_000);
  await bus.consumeBatches(
    'planner',
    async (batch) => {
      await planner.handleBatch(batch);
      if (planner.committedPosition >= target) stop.abort();
    },
    { signal: stop.signal },
  );
  clearTimeout(timer);
  assert.equal(planner.committedPosition, target);
  // Its position last moved 90 s ago; the watcher keeps publishing heartbeats nobody folds.
  await sql`update consumer_positions set updated_at = now() - interval '90 seconds' where consumer = 'planner'`.execute(
    tdb.db,
  );
  await publish([heartbeat('c1', Date.now() - 4000), heartbeat('c1', Date.now() - 2000), heartbeat('c1', Date.now())]);

  const { code, report } = await status(configFile);
  assert.equal(code, 1);
  const planned = report.problems.filter((p) => p.startsWith('planner:'));
  assert.equal(planned.length, 1, report.problems.join('\n'));
  assert.match(
    planned[0]!,
    /^planner: not consuming \(lag 3, position unchanged for 9\ds; newest heartbeat archived \d+s behind the stream\)$/,
  );
  assert.ok(
    !report.problems.some((p) => /watch stale|c1/.test(p)),
    `the watch is fresh: ${report.problems.join('\n')}`,
  );
  const c1 = report.clusters[0]!;
  assert.equal(c1.stale, false);
  assert.ok(c1.ageSeconds !== null && c1.ageSeconds >= 89, 'the archive holds only the old heartbeat');
  assert.ok(
    c1.publishedHeartbeat !== undefined && c1.publishedHeartbeat !== null && c1.publishedHeartbeat.ageSeconds <= 5,
  );
  assert.ok(!report.problems.some((p) => /All healthy/.test(p)));
});

test('the watcher goes silent: status names the watch (the planner has nothing to consume)', async () => {
  const fresh = `${stream}_SILENT`;
  const silentFile = path.join(dir, 'silent.yaml');
  await fs.writeFile(silentFile, fleetYaml(tdb.url).replaceAll(stream, fresh));
  const other = await NatsEventBus.open(
    natsUrl,
    busDeclaration({ stream: fresh, replicas: 1, maxPayloadBytes: 1 << 20, subjectPrefix: fresh }),
  );
  try {
    // The watcher published nothing into this stream: however fresh the archive (the planner's heartbeats of the
    // test before), the watch is stale, and the planner, with nothing to consume, is not blamed.
    const { code, report } = await status(silentFile);
    assert.equal(code, 1);
    assert.ok(
      report.problems.includes('cluster c1: watch stale (no heartbeat in the stream)'),
      report.problems.join('\n'),
    );
    assert.ok(!report.problems.some((p) => p.startsWith('planner:')), report.problems.join('\n'));
  } finally {
    await other.jsm.streams.delete(fresh).catch(() => undefined);
    await other.jsm.streams.delete(`${fresh}_PIPELINE`).catch(() => undefined);
    await other.close().catch(() => undefined);
  }
});

test('the store does not answer: status says so and exits non-zero', async () => {
  const downFile = path.join(dir, 'down.yaml');
  await fs.writeFile(downFile, fleetYaml(`postgres://portolan:x@127.0.0.1:${await freePort()}/portolan`));
  const { code, report } = await status(downFile);
  assert.equal(code, 1);
  assert.equal(report.problems.length, 1, report.problems.join('\n'));
  assert.match(report.problems[0]!, /^store: unreachable \(.+\)$/);
});
