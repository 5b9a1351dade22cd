import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatStatusTable,
  plannerProblem,
  statusProblems,
  watchStale,
  type PlannerStatus,
  type StatusReport,
} from './status-report.ts';

const healthy: Omit<StatusReport, 'problems'> = {
  at: '2026-11-22T14:00:00.000Z',
  clusters: [
    {
      cluster: 'c1',
      lastHeartbeat: '2026-11-22T13:59:58.000Z',
      ageSeconds: 2,
      synced: true,
      watcher: 'w',
      lastEvent: null,
      stale: false,
    },
  ],
  appliances: [
    {
      appliance: 'edge',
      driver: 'vtm',
      group: 'edge',
      leader: 'r1',
      epoch: 4,
      head: { id: '9', at: '2026-11-22T13:59:00.000Z', held: false, holdReason: null, origin: 'plan' },
      lastApply: { id: '12', snapshot: '9', status: 'succeeded', finishedAt: '2026-11-22T13:59:01.000Z', epoch: 4 },
      lastAppliedSnapshot: '9',
      lag: { snapshots: 0, oldestAgeSeconds: null },
      pinnedTo: null,
    },
  ],
  stream: {
    stream: 'PORTOLAN',
    lastSeq: 100,
    error: null,
    archivedSeq: 100,
    consumers: [{ consumer: 'planner', position: 97, lag: 3, updatedAt: '2026-11-22T13:59:59.000Z' }],
  },
  holds: [],
  notes: [],
};

test('statusProblems: healthy is empty; stale watch, no leader, failed apply, held head and an unreachable bus are listed', () => {
  assert.deepEqual(statusProblems(healthy), []);
  const bad = {
    ...healthy,
    clusters: [
      { ...healthy.clusters[0]!, stale: true, ageSeconds: 300 },
      { ...healthy.clusters[0]!, cluster: 'c2', lastHeartbeat: null, ageSeconds: null, stale: true },
    ],
    appliances: [
      {
        ...healthy.appliances[0]!,
        leader: null,
        lastApply: { ...healthy.appliances[0]!.lastApply!, status: 'failed' },
        head: { ...healthy.appliances[0]!.head!, held: true, holdReason: 'pinned by rollback to snapshot 3' },
      },
    ],
    stream: { ...healthy.stream, error: 'cannot connect to NATS', lastSeq: null },
    holds: [
      {
        cluster: 'c1',
        kind: 'Ingress',
        object: 'team-a/web',
        since: '2026-11-22T13:50:00.000Z',
        reason: 'a relist of Ingress no longer lists 6 of 8 hosts',
        appliances: ['edge'],
      },
      {
        cluster: 'c1',
        kind: 'Ingress',
        object: 'team-a/api',
        since: '2026-11-22T13:50:00.000Z',
        reason: 'a relist of Ingress no longer lists 6 of 8 hosts',
        appliances: ['edge'],
      },
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
  assert.match(
    text,
    /PORTOLAN: last seq 100, archived up to 100\nCONSUMER\s+POSITION\s+LAG\s+UPDATED\nplanner\s+97\s+3/,
  );
  assert.match(text, /All healthy\.\n$/);
  assert.doesNotMatch(text, /HELD REMOVALS/);
});

test('formatStatusTable: held removals get their own table, and the verdict is not healthy', () => {
  const holds = [
    {
      cluster: 'c1',
      kind: 'EndpointSlice',
      object: 'shop/web-1',
      since: '2026-11-22T13:50:00.000Z',
      reason: 'a relist of EndpointSlice no longer lists 9 of 10 endpoints',
      appliances: ['edge', 'vtm'],
    },
  ];
  const partial = { ...healthy, holds };
  const text = formatStatusTable({ ...partial, problems: statusProblems(partial) });
  assert.match(
    text,
    /HELD REMOVALS\nCLUSTER\s+KIND\s+OBJECT\s+SINCE\s+APPLIANCES\s+REASON\nc1\s+EndpointSlice\s+shop\/web-1\s+2026-11-22T13:50:00.000Z\s+edge,vtm\s+a relist/,
  );
  assert.match(text, /PROBLEMS\n- appliance edge: 1 removal\(s\) held[^\n]*\n- appliance vtm: 1 removal\(s\) held/);
  assert.doesNotMatch(text, /All healthy/);
});

const planner = (o: Partial<PlannerStatus> = {}): PlannerStatus => ({
  consumer: 'planner',
  position: 97,
  positionAgeSeconds: 1,
  lag: 3,
  heartbeatGapSeconds: 2,
  redelivered: 0,
  ...o,
});
const published = (ageSeconds: number) => ({ at: '2026-11-22T13:59:58.000Z', ageSeconds, seq: 100 });

// One table of cases, one row per fault: a longer table, not a longer procedure.
test('statusProblems table: each fault is named by the component at fault, and only a healthy report is empty', () => {
  const c1 = healthy.clusters[0]!;
  const a1 = healthy.appliances[0]!;
  const rows: { name: string; report: Omit<StatusReport, 'problems'>; want: string[] }[] = [
    {
      name: 'healthy, with the planner and the stream read',
      report: { ...healthy, planner: planner(), clusters: [{ ...c1, publishedHeartbeat: published(1) }] },
      want: [],
    },
    {
      name: 'planner stopped: heartbeats flow into the stream but are not archived; the watch is fresh',
      report: {
        ...healthy,
        clusters: [{ ...c1, ageSeconds: 62, stale: watchStale(62, 1, 60), publishedHeartbeat: published(1) }],
        planner: planner({ lag: 31, positionAgeSeconds: 62, heartbeatGapSeconds: 61 }),
      },
      want: [
        'planner: not consuming (lag 31, position unchanged for 62s; newest heartbeat archived 61s behind the stream)',
      ],
    },
    {
      name: 'planner failing every batch: position stuck with lag, JetStream redelivers',
      report: {
        ...healthy,
        planner: planner({ lag: 12, positionAgeSeconds: 45, heartbeatGapSeconds: null, redelivered: 7 }),
      },
      want: ['planner: not consuming (lag 12, position unchanged for 45s; 7 redelivered)'],
    },
    {
      name: 'a planner that never committed',
      report: {
        ...healthy,
        planner: planner({ position: null, positionAgeSeconds: null, lag: 5, heartbeatGapSeconds: null }),
      },
      want: ['planner: not consuming (lag 5, no committed position)'],
    },
    {
      name: 'a busy planner: lag, but the position moves',
      report: { ...healthy, planner: planner({ lag: 500, positionAgeSeconds: 2 }) },
      want: [],
    },
    {
      name: 'an idle stream: the position has not moved, but there is nothing to consume',
      report: { ...healthy, planner: planner({ lag: 0, positionAgeSeconds: 600, heartbeatGapSeconds: null }) },
      want: [],
    },
    {
      name: 'watcher silent: no heartbeat published for 300s (the planner is fine)',
      report: {
        ...healthy,
        clusters: [{ ...c1, ageSeconds: 301, stale: watchStale(301, 300, 60), publishedHeartbeat: published(300) }],
        planner: planner({ lag: 0, positionAgeSeconds: 300 }),
      },
      want: ['cluster c1: watch stale (last heartbeat published 300s ago)'],
    },
    {
      name: 'no heartbeat in the stream at all',
      report: {
        ...healthy,
        clusters: [
          { ...c1, lastHeartbeat: null, ageSeconds: null, stale: watchStale(null, null, 60), publishedHeartbeat: null },
        ],
      },
      want: ['cluster c1: watch stale (no heartbeat in the stream)'],
    },
    {
      name: 'applier not applying: the head waits past the threshold while a leader exists',
      report: {
        ...healthy,
        appliances: [{ ...a1, head: { ...a1.head!, id: '10' }, lag: { snapshots: 2, oldestAgeSeconds: 300 } }],
      },
      want: ['appliance edge: 2 snapshot(s) not applied, oldest 300s old (leader r1)'],
    },
    {
      name: 'a fresh snapshot being applied is not a problem',
      report: { ...healthy, appliances: [{ ...a1, lag: { snapshots: 1, oldestAgeSeconds: 3 } }] },
      want: [],
    },
    {
      name: 'a partial last apply',
      report: { ...healthy, appliances: [{ ...a1, lastApply: { ...a1.lastApply!, status: 'partial' } }] },
      want: ['appliance edge: last apply 12 partial'],
    },
    {
      name: 'store unreachable: said first, nothing else claimed',
      report: { ...healthy, clusters: [], appliances: [], storeError: 'connect ECONNREFUSED 127.0.0.1:5432' },
      want: ['store: unreachable (connect ECONNREFUSED 127.0.0.1:5432)'],
    },
  ];
  for (const row of rows) assert.deepEqual(statusProblems(row.report), row.want, row.name);
});

test('watchStale judges the stream when it was read, else the archive', () => {
  assert.equal(watchStale(300, 2, 60), false, 'archived long ago, published now: the planner lags, the watch is fresh');
  assert.equal(watchStale(2, 300, 60), true);
  assert.equal(watchStale(300, undefined, 60), true, 'bus unreadable: the archive is all there is');
  assert.equal(watchStale(null, null, 60), true);
});

test('formatStatusTable: the planner line, and a store-down report that says so and nothing else', () => {
  const text = formatStatusTable({ ...healthy, planner: planner(), problems: [] });
  assert.match(text, /planner: position 97, moved 1s ago, lag 3, archive's newest heartbeat 2s behind the stream's\n/);
  const down = { ...healthy, clusters: [], appliances: [], storeError: 'connect ECONNREFUSED' };
  const downText = formatStatusTable({ ...down, problems: statusProblems(down) });
  assert.match(
    downText,
    /^STORE\nunreachable: connect ECONNREFUSED\n\nPROBLEMS\n- store: unreachable \(connect ECONNREFUSED\)\n$/,
  );
  assert.doesNotMatch(plannerProblem(planner()) ?? 'none', /planner:/);
});
