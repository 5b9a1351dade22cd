// Rollback and resume on a recorded scenario: the operator's rollback goes through the leader, pins planning,
// and is refused without a terminal or a yes; resume releases the plan held meanwhile.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AuditUsageError,
  type AuditCommandName,
  type HistoryReport,
  type RollbackReport,
  type StatusReport,
} from '@portolan/audit';
import { appliesOf, jsonOf, snapshotCount, webNodes } from './audit-checks.ts';
import { AuditScenario, type StepName } from './audit-scenario.ts';

let s: AuditScenario;
before(async () => {
  s = await AuditScenario.record();
});
after(async () => {
  await s?.close();
});

const json = <T>(command: AuditCommandName, args: readonly string[]): Promise<T> => jsonOf<T>(s, command, args);
const step = (name: StepName) => s.step_(name);

test('rollback refuses without --yes when stdin is not a terminal, and changes nothing when the operator declines', async () => {
  const before = await snapshotCount(s);
  const refused = await s.run('rollback', [s.appliance, '--to', step('create').snapshot, '--reason', 'bad deploy']);
  assert.equal(refused.code, 1);
  assert.match(refused.stdout, /Vendor operations a push would make/);
  assert.match(refused.stderr, /refusing to roll back without --yes: stdin is not a terminal/);
  const declined = await s.run('rollback', [s.appliance, '--to', step('create').snapshot, '--reason', 'bad deploy'], {
    stdinIsTty: true,
    answer: 'n',
  });
  assert.equal(declined.code, 1);
  assert.match(declined.stderr, /Roll .* back to snapshot \d+ and pin its planning\? \[y\/N\]/);
  assert.match(declined.stdout, /Rollback aborted: nothing was changed/);
  assert.equal(await snapshotCount(s), before);
  assert.equal(await s.db.selectFrom('snapshot_pins').selectAll().executeTakeFirst(), undefined);
  assert.equal(await s.db.selectFrom('operator_actions').selectAll().executeTakeFirst(), undefined);
});

test('rollback and resume need a reason and an operator token; without them nothing changes', async () => {
  const before = await snapshotCount(s);
  await assert.rejects(
    s.run('resume', [s.appliance]),
    (e: unknown) => e instanceof AuditUsageError && /--reason is required/.test(e.message),
  );
  const noToken = await s.run('rollback', [s.appliance, '--to', step('create').snapshot, '--reason', 'r', '--yes'], {
    env: {},
  });
  assert.equal(noToken.code, 1);
  assert.match(noToken.stderr, /portolan rollback: an operator token is required: pass --token-file <file>/);
  assert.equal(await snapshotCount(s), before);
  assert.equal(await s.db.selectFrom('operator_actions').selectAll().executeTakeFirst(), undefined);
});

// One operator session in order (rollback, apply, pin, a change held, resume): each step needs the one before.
test('rollback restores the earlier routing through the leader, records the reason, and pins planning until resume', async () => {
  assert.deepEqual(webNodes(s.emulator), ['10.1.0.1:8080', '10.1.0.2:8080', '10.1.0.3:8080']);
  const r = await json<RollbackReport>('rollback', [
    s.appliance,
    '--to',
    step('create').snapshot,
    '--yes',
    '--reason',
    'bad deploy',
  ]);
  assert.ok(r.rollbackSnapshot !== null);
  const row = await s.db
    .selectFrom('snapshots')
    .selectAll()
    .where('id', '=', r.rollbackSnapshot)
    .executeTakeFirstOrThrow();
  assert.deepEqual(
    [row.origin, row.reason, String(row.parent_id), row.content_hash],
    ['rollback', 'bad deploy', step('failover').snapshot, r.to.contentHash],
  );
  // The leader applies it like any snapshot.
  const applied = await s.leaderApplier().reconcile('snapshot');
  assert.ok(applied.kind === 'applied' && applied.snapshotId === r.rollbackSnapshot && applied.status === 'succeeded');
  assert.deepEqual(
    webNodes(s.emulator),
    ['10.1.0.1:8080', '10.1.0.2:8080'],
    'the earlier members serve web.example.com again',
  );
  assert.ok(
    s.emulator.state.list('pools').some((n) => n.includes('shop_docs_80')),
    "the deleted Ingress's pool is back",
  );
  const h = await json<HistoryReport>('history', [s.appliance, '--since', step('failover').after.toISOString()]);
  assert.deepEqual(
    h.entries.map((e) =>
      e.type === 'apply'
        ? `apply:${e.trigger}`
        : e.type === 'snapshot'
          ? `${e.origin}:${e.reason ?? ''}`
          : e.type === 'rollback'
            ? `operator rollback by ${e.actor}: ${e.reason}`
            : e.type,
    ),
    ['operator rollback by scenario-operator (token): bad deploy', 'rollback:bad deploy', 'apply:rollback'],
  );
  const applyRow = appliesOf(h)[0]!;
  assert.equal(applyRow.rollbackReason, 'bad deploy', "the apply shows the operator's reason");

  // While pinned, a new plan is recorded but held, and the appliance keeps the rollback.
  await s.publishAndPlan([
    [
      'EndpointSlice',
      'MODIFIED',
      s.objects.slice('shop', 'web-1', 'web', ['10.1.0.1', '10.1.0.2', '10.1.0.3', '10.1.0.5', '10.1.0.6']),
    ],
  ]);
  const head = await s.db
    .selectFrom('snapshot_heads as h')
    .innerJoin('snapshots as x', 'x.id', 'h.snapshot_id')
    .select(['x.id', 'x.held', 'x.hold_reason'])
    .where('h.appliance', '=', s.appliance)
    .executeTakeFirstOrThrow();
  assert.deepEqual([head.held, head.hold_reason], [true, `pinned by rollback to snapshot ${step('create').snapshot}`]);
  await s.leaderApplier().reconcile('snapshot');
  assert.deepEqual(webNodes(s.emulator), ['10.1.0.1:8080', '10.1.0.2:8080']);
  const status = await s.run('status', ['-o', 'json']);
  assert.equal(status.code, 1);
  const st = JSON.parse(status.stdout) as StatusReport;
  assert.equal(st.appliances[0]?.pinnedTo, step('create').snapshot);
  assert.ok(st.problems.some((p) => p.includes('held (pinned by rollback')));

  // resume: the pin goes, the plan held meanwhile is released and applied.
  const resumed = await s.run('resume', [s.appliance, '--reason', 'web-3 is healthy again']);
  assert.equal(resumed.code, 0);
  assert.match(
    resumed.stdout,
    /Removed the pin .* to snapshot \d+ \(bad deploy, since [^)]+\), by scenario-operator \(token\)\.\nReleased current planning as snapshot \d+/,
  );
  assert.deepEqual(
    (await s.db.selectFrom('operator_actions').select(['action', 'actor', 'reason']).orderBy('id').execute()).map(
      (a) => `${a.action} by ${a.actor}: ${a.reason}`,
    ),
    [
      'rollback by scenario-operator (token): bad deploy',
      'resume by scenario-operator (token): web-3 is healthy again',
    ],
  );
  const after = await s.leaderApplier().reconcile('snapshot');
  assert.ok(after.kind === 'applied' && after.status === 'succeeded');
  assert.deepEqual(webNodes(s.emulator), [
    '10.1.0.1:8080',
    '10.1.0.2:8080',
    '10.1.0.3:8080',
    '10.1.0.5:8080',
    '10.1.0.6:8080',
  ]);
  assert.equal(await s.db.selectFrom('snapshot_pins').selectAll().executeTakeFirst(), undefined);
  const again = await s.run('resume', [s.appliance, '--reason', 'checking']);
  assert.match(again.stdout, /was not pinned/);
});
