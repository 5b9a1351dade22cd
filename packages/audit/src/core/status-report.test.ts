import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatStatusTable, statusProblems, type StatusReport } from './status-report.ts';

const healthy: Omit<StatusReport, 'problems'> = {
  at: '2026-11-22T14:00:00.000Z',
  clusters: [{ cluster: 'c1', lastHeartbeat: '2026-11-22T13:59:58.000Z', ageSeconds: 2, synced: true, watcher: 'w', lastEvent: null, stale: false }],
  appliances: [{ appliance: 'edge', driver: 'vtm', group: 'edge', leader: 'r1', epoch: 4, head: { id: '9', at: '2026-11-22T13:59:00.000Z', held: false, holdReason: null, origin: 'plan' }, lastApply: { id: '12', snapshot: '9', status: 'succeeded', finishedAt: '2026-11-22T13:59:01.000Z', epoch: 4 }, lastAppliedSnapshot: '9', lag: { snapshots: 0, oldestAgeSeconds: null }, pinnedTo: null }],
  stream: { stream: 'PORTOLAN', lastSeq: 100, error: null, archivedSeq: 100, consumers: [{ consumer: 'planner', position: 97, lag: 3, updatedAt: '2026-11-22T13:59:59.000Z' }] },
  holds: [],
  notes: [],
};

test('statusProblems: healthy is empty; stale watch, no leader, failed apply, held head and an unreachable bus are listed', () => {
  assert.deepEqual(statusProblems(healthy), []);
  const bad = {
    ...healthy,
    clusters: [{ ...healthy.clusters[0]!, stale: true, ageSeconds: 300 }, { ...healthy.clusters[0]!, cluster: 'c2', lastHeartbeat: null, ageSeconds: null, stale: true }],
    appliances: [{ ...healthy.appliances[0]!, leader: null, lastApply: { ...healthy.appliances[0]!.lastApply!, status: 'failed' }, head: { ...healthy.appliances[0]!.head!, held: true, holdReason: 'pinned by rollback to snapshot 3' } }],
    stream: { ...healthy.stream, error: 'cannot connect to NATS', lastSeq: null },
    holds: [
      { cluster: 'c1', kind: 'Ingress', object: 'team-a/web', since: '2026-11-22T13:50:00.000Z', reason: 'a relist of Ingress no longer lists 6 of 8 hosts', appliances: ['edge'] },
      { cluster: 'c1', kind: 'Ingress', object: 'team-a/api', since: '2026-11-22T13:50:00.000Z', reason: 'a relist of Ingress no longer lists 6 of 8 hosts', appliances: ['edge'] },
    ],
  };
  assert.deepEqual(statusProblems(bad), [
    'cluster c1: watch stale (last heartbeat 300s ago)',
    'cluster c2: no heartbeat archived',
    'appliance edge: no leader holds group edge',
    'appliance edge: last apply 12 failed',
    'appliance edge: head snapshot 9 held (pinned by rollback to snapshot 3)',
    'appliance edge: 2 removal(s) held by the safety rule in c1 since 2026-11-22T13:50:00.000Z (approve: portolan approve edge --reason "...")',
    'bus: cannot connect to NATS',
  ]);
});

test('formatStatusTable: three sections and a verdict', () => {
  const text = formatStatusTable({ ...healthy, problems: [] });
  assert.match(text, /^CLUSTERS\nCLUSTER\s+LAST HEARTBEAT/);
  assert.match(text, /edge\s+vtm\s+r1\s+4\s+9\s+12 succeeded 2026-11-22T13:59:01.000Z\s+9\s+in sync/);
  assert.match(text, /PORTOLAN: last seq 100, archived up to 100\nCONSUMER\s+POSITION\s+LAG\s+UPDATED\nplanner\s+97\s+3/);
  assert.match(text, /All healthy\.\n$/);
  assert.doesNotMatch(text, /HELD REMOVALS/);
});

test('formatStatusTable: held removals get their own table, and the verdict is not healthy', () => {
  const holds = [{ cluster: 'c1', kind: 'EndpointSlice', object: 'shop/web-1', since: '2026-11-22T13:50:00.000Z', reason: 'a relist of EndpointSlice no longer lists 9 of 10 endpoints', appliances: ['edge', 'vtm'] }];
  const partial = { ...healthy, holds };
  const text = formatStatusTable({ ...partial, problems: statusProblems(partial) });
  assert.match(text, /HELD REMOVALS\nCLUSTER\s+KIND\s+OBJECT\s+SINCE\s+APPLIANCES\s+REASON\nc1\s+EndpointSlice\s+shop\/web-1\s+2026-11-22T13:50:00.000Z\s+edge,vtm\s+a relist/);
  assert.match(text, /PROBLEMS\n- appliance edge: 1 removal\(s\) held[^\n]*\n- appliance vtm: 1 removal\(s\) held/);
  assert.doesNotMatch(text, /All healthy/);
});
