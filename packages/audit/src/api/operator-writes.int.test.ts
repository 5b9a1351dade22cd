// The audit's writes as the console and the CLI call them, on a real Postgres: rollback, resume and an approval
// with nothing held each record who and why (operator_actions, the pin, the snapshots) and show in history; a
// write without a reason or without an operator token is refused with nothing written.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DesiredState } from '@portolan/desired-state';
import { hashToken, newToken } from '@portolan/access';
import { parseFleetConfig } from '@portolan/fleet-config';
import { testStack } from '@portolan/infra';
import { splitSnapshot } from '@portolan/snapshot';
import { createTestDatabase, PgSnapshotHeads, pinHoldReason, type TestDatabase } from '@portolan/store';
import type { CommandIo } from '../adapters/command-io.ts';
import { auditCommands } from '../commands/index.ts';
import { formatHistoryTable } from '../core/history-table.ts';
import { CommandFailed } from '../errors.ts';
import { shop } from '../testing/desired-fixture.ts';
import { approve } from './approve.ts';
import { auditContextFor, type AuditContext } from './audit-context.ts';
import { historyReport } from './history-report.ts';
import { resume } from './resume.ts';
import { rollback } from './rollback.ts';

const operatorToken = newToken();
const viewerToken = newToken();
let tdb: TestDatabase;
let dir: string;
let configFile: string;
let ctx: AuditContext;
/** Snapshot ids by name: `good` (two web members), `bad` (three), appended in that order. */
const ids: Record<string, string> = {};

before(async () => {
  const stack = await testStack();
  tdb = await createTestDatabase(stack.postgresUrl);
  dir = await mkdtemp(path.join(os.tmpdir(), 'portolan-audit-writes-'));
  configFile = path.join(dir, 'fleet.yaml');
  await writeFile(configFile, fleetYaml(stack.natsUrl, stack.redisUrl, tdb.url));
  ctx = auditContextFor(parseFleetConfig(await readFile(configFile, 'utf8'), configFile, dir), { db: tdb.db });
  ids['good'] = await append(shop([1, 2]), null, 1);
  ids['bad'] = await append(shop([1, 2, 3]), ids['good']!, 2);
});
after(async () => {
  await ctx?.close();
  await tdb?.drop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function fleetYaml(natsUrl: string, redisUrl: string, storeUrl: string): string {
  return `version: 1
clusters:
  - name: c1
appliances:
  - name: edge
    driver: vtm
    vtm: { url: "http://127.0.0.1:9", username: admin, passwordFile: vtm-password, defaultTrafficIpGroup: tip-default }
bus: { url: "${natsUrl}", stream: AUDIT_WRITES, subjectPrefix: AUDIT_WRITES }
store: { url: "${storeUrl}" }
leases: { redisUrl: "${redisUrl}" }
secrets: { keyFile: fleet.key }
console:
  tokens:
    - { name: ops, role: operator, sha256: ${hashToken(operatorToken)} }
    - { name: watcher, role: viewer, sha256: ${hashToken(viewerToken)} }
`;
}

/** Appends a planned snapshot of `desired` on `parent`, as the planner would. */
async function append(
  desired: DesiredState,
  parent: string | null,
  seq: number,
  hold: string | null = null,
): Promise<string> {
  const { root, pieces } = splitSnapshot(desired);
  return new PgSnapshotHeads(tdb.db).append({
    appliance: 'edge',
    contentHash: root,
    rootHash: root,
    pieces,
    parentId: parent,
    lastEventSeq: seq,
    fleetConfigHash: 'f',
    plannerVersion: 'test',
    held: hold !== null,
    holdReason: hold,
    traceId: null,
  });
}

const actions = () => tdb.db.selectFrom('operator_actions').selectAll().orderBy('id').execute();
const snapshotCount = async (): Promise<number> =>
  Number(
    (
      await tdb.db
        .selectFrom('snapshots')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const refused = (kind: CommandFailed['kind'], pattern: RegExp) => (e: unknown) =>
  e instanceof CommandFailed && e.kind === kind && pattern.test(e.message);

test('a write without a reason or an actor is refused as invalid, and nothing is written', async () => {
  const count = await snapshotCount();
  const alice = 'alice (token)';
  await assert.rejects(
    rollback(ctx, { appliance: 'edge', to: ids['good']!, reason: '  ', actor: alice }),
    refused('invalid', /a reason is required/),
  );
  await assert.rejects(
    rollback(ctx, { appliance: 'edge', to: ids['good']!, reason: 'x'.repeat(1001), actor: alice }),
    refused('invalid', /at most 1000/),
  );
  await assert.rejects(resume(ctx, { appliance: 'edge', reason: '', actor: alice }), refused('invalid', /reason/));
  await assert.rejects(approve(ctx, { appliance: 'edge', reason: 'ok', actor: ' ' }), refused('invalid', /actor/));
  await assert.rejects(
    rollback(ctx, { appliance: 'lb-9', to: ids['good']!, reason: 'r', actor: alice }),
    refused('not-found', /unknown appliance "lb-9"/),
  );
  await assert.rejects(
    rollback(ctx, { appliance: 'edge', to: '424242', reason: 'r', actor: alice }),
    refused('not-found', /unknown snapshot "424242"/),
  );
  assert.deepEqual(await actions(), []);
  assert.equal(await snapshotCount(), count);
  assert.equal(await tdb.db.selectFrom('snapshot_pins').selectAll().executeTakeFirst(), undefined);
});

// One operator session in order: rollback, a plan held by the pin, resume, an approval with nothing held.
test('rollback, resume and approve record the actor and the reason, and history shows them', async () => {
  const r = await rollback(ctx, { appliance: 'edge', to: ids['good']!, reason: 'bad deploy', actor: 'alice (token)' });
  assert.ok(r.rollbackSnapshot !== null);
  assert.deepEqual(
    [r.actor, r.reason, r.from.id, r.to.id, r.pinned],
    ['alice (token)', 'bad deploy', ids['bad'], ids['good'], true],
  );
  const row = await tdb.db
    .selectFrom('snapshots')
    .selectAll()
    .where('id', '=', r.rollbackSnapshot)
    .executeTakeFirstOrThrow();
  assert.deepEqual([row.origin, row.reason], ['rollback', 'bad deploy']);
  const pin = await ctx.store.pin('edge');
  assert.deepEqual([pin?.snapshotId, pin?.actor, pin?.reason], [ids['good'], 'alice (token)', 'bad deploy']);

  // The planner commits a plan while pinned: held, as it does.
  const held = await append(shop([1, 2, 3, 4]), r.rollbackSnapshot, 3, pinHoldReason({ snapshotId: ids['good']! }));
  const resumed = await resume(ctx, { appliance: 'edge', reason: 'fixed in v3', actor: 'bob (kubernetes)' });
  assert.deepEqual(resumed.unpinned && [resumed.unpinned.snapshotId, resumed.unpinned.actor], [
    ids['good'],
    'alice (token)',
  ]);
  assert.ok(resumed.released !== null);
  const released = await ctx.store.snapshot(resumed.released);
  assert.deepEqual(
    [released?.parentId, released?.held, released?.reason, released?.contentHash],
    [held, false, 'fixed in v3', (await ctx.store.snapshot(held))?.contentHash],
  );
  assert.equal(await ctx.store.pin('edge'), null);

  const approved = await approve(ctx, { appliance: 'edge', reason: 'checked the holds', actor: 'carol (token)' });
  assert.deepEqual([approved.held, approved.approval, approved.released], [[], null, null]);

  assert.deepEqual(
    (await actions()).map((a) => [
      a.action,
      a.actor,
      a.reason,
      a.target_snapshot_id === null ? null : String(a.target_snapshot_id),
      a.result_snapshot_id === null ? null : String(a.result_snapshot_id),
      a.approval_seq,
    ]),
    [
      ['rollback', 'alice (token)', 'bad deploy', ids['good'], r.rollbackSnapshot, null],
      ['resume', 'bob (kubernetes)', 'fixed in v3', ids['good'], resumed.released, null],
      ['approve', 'carol (token)', 'checked the holds', null, null, null],
    ],
  );

  const h = await historyReport(ctx, { appliance: 'edge', kinds: ['approval', 'rollback', 'resume'] });
  assert.deepEqual(
    h.entries.map((e) =>
      e.type === 'approval' || e.type === 'rollback' || e.type === 'resume'
        ? `${e.type}:${e.actor}:${e.reason}`
        : e.type,
    ),
    [
      'rollback:alice (token):bad deploy',
      'resume:bob (kubernetes):fixed in v3',
      'approval:carol (token):checked the holds',
    ],
  );
  const all = await historyReport(ctx, { appliance: 'edge' });
  const rollbackAt = all.entries.findIndex((e) => e.type === 'rollback');
  assert.equal(all.entries[rollbackAt + 1]?.type, 'snapshot', 'the rollback comes right before the snapshot it made');
  assert.match(
    formatHistoryTable(all),
    /resume\s+\d+\s+\d+\s+-\s+by bob \(kubernetes\)\s+resume: pin to \d+ removed, released snapshot \d+: fixed in v3/,
  );
  await assert.rejects(
    historyReport(ctx, { appliance: 'edge', kinds: ['nonsense'] }),
    refused('invalid', /unknown history kind/),
  );
  await assert.rejects(historyReport(ctx, { appliance: 'edge', since: 'yesterday-ish' }), refused('invalid', /since/));
});

test('the CLI writes only with an operator token, and records its holder', async () => {
  const run = async (env: Record<string, string>, ...args: string[]) => {
    let stdout = '';
    let stderr = '';
    const io: CommandIo = {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      stdinIsTty: false,
      stderrIsTty: false,
      ask: async () => '',
      now: () => new Date(),
      env,
      cwd: dir,
    };
    const code = await auditCommands.approve(['edge', '--config', configFile, '--wait', '0', ...args], io);
    return { code, stdout, stderr };
  };
  const before = (await actions()).length;
  await assert.rejects(run({ PORTOLAN_TOKEN: operatorToken }), /--reason is required/);
  const none = await run({}, '--reason', 'r');
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    /an operator token is required: pass --token-file <file>, set PORTOLAN_TOKEN, or keep it in .*operator\.token/,
  );
  const viewer = await run({ PORTOLAN_TOKEN: viewerToken }, '--reason', 'r');
  assert.match(viewer.stderr, /belongs to "watcher", a viewer: approve, rollback and resume need an operator token/);
  const unknown = await run({ PORTOLAN_TOKEN: newToken() }, '--reason', 'r');
  assert.match(unknown.stderr, /is not one the fleet config grants/);
  assert.equal((await actions()).length, before, 'nothing was recorded');

  await writeFile(path.join(dir, 'ops.token'), `${operatorToken}\n`);
  const ok = await run({}, '--reason', 'looked at the holds', '--token-file', 'ops.token');
  assert.deepEqual([ok.code, ok.stdout], [0, 'nothing is held for edge (clusters c1); recorded by ops (token)\n']);
  await writeFile(path.join(dir, 'operator.token'), operatorToken);
  assert.equal((await run({}, '--reason', 'beside the config')).code, 0, 'operator.token beside the fleet config');
  assert.deepEqual(
    (await actions()).slice(before).map((a) => [a.actor, a.reason]),
    [
      ['ops (token)', 'looked at the holds'],
      ['ops (token)', 'beside the config'],
    ],
  );
});
