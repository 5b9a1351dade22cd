import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Applier } from '@portolan/applier';
import { busDeclaration, NatsEventBus } from '@portolan/bus';
import { loadFleetConfig, type ApplianceConfig, type LoadedFleetConfig } from '@portolan/fleet-config';
import { testStack } from '@portolan/infra';
import { PgPlannerStore, PlannerService } from '@portolan/planner';
import { loadFleetKey, type FleetKey } from '@portolan/secret-envelope';
import { createTestDatabase, type TestDatabase } from '@portolan/store';
import { createLogger } from '@portolan/telemetry';
import { startVtmEmulator, type VtmEmulator } from '@portolan/vtm-emulator';
import type { AuditCommandName } from '@portolan/audit';
import { runAuditCommand, type CommandRun, type RunOptions } from './audit-runner.ts';
import { fleetYaml, keysByKind, OPERATOR_TOKEN, type Change } from './scenario-fleet.ts';
import { startReplica, type Replica } from './scenario-replica.ts';
import { heartbeat, KubeObjects, kubeMessage, listMarkers, type OutboundKubeMessage } from './kube-messages.ts';

export type { Change } from './scenario-fleet.ts';
export type { CommandRun } from './audit-runner.ts';

/** The web certificate before the rotation (the emulator stores PEM text; it does not parse it). */
export const CERT_V1 = '-----BEGIN CERTIFICATE-----\nd2ViIHYx\n-----END CERTIFICATE-----\n';
/** The web certificate after the rotation. */
export const CERT_V2 = '-----BEGIN CERTIFICATE-----\nd2ViIHYy\n-----END CERTIFICATE-----\n';
const KEY_V1 = '-----BEGIN PRIVATE KEY-----\nkey-one\n-----END PRIVATE KEY-----\n';
const KEY_V2 = '-----BEGIN PRIVATE KEY-----\nkey-two\n-----END PRIVATE KEY-----\n';

/** What each recorded step produced: the head snapshot, the apply that pushed it, and a time after that apply. */
export interface StepRecord {
  readonly snapshot: string;
  readonly apply: string;
  readonly after: Date;
}

/** The steps of the recorded scenario, in order. */
export type StepName = 'create' | 'scale' | 'tls' | 'delete' | 'drift' | 'failover';

const silent = createLogger('audit-scenario', { destination: new Writable({ write: (_c, _e, done) => done() }) });

/**
 * A recorded scenario on real services: the watcher's own message builder publishes into JetStream, the real
 * PlannerService folds and commits (archive, pieces, snapshots, position), two real appliers (Redis lease,
 * Postgres epochs) push through the real vTM driver to the vTM emulator and record applies and drift. Steps:
 * create, scale, TLS rotation, delete, drift (corrected), failover to the second replica with a scale.
 */
export class AuditScenario {
  readonly appliance: string;
  readonly configFile: string;
  readonly emulator: VtmEmulator;
  readonly steps = new Map<StepName, StepRecord>();
  readonly objects = new KubeObjects();
  readonly fleetKey: FleetKey;
  private readonly tdb: TestDatabase;
  private readonly bus: NatsEventBus;
  private readonly planner: PlannerService;
  private readonly fleet: LoadedFleetConfig;
  private readonly dir: string;
  private readonly replicas: Replica[] = [];
  private leader: Replica | null = null;

  private constructor(init: {
    appliance: string;
    configFile: string;
    emulator: VtmEmulator;
    tdb: TestDatabase;
    bus: NatsEventBus;
    fleet: LoadedFleetConfig;
    dir: string;
    key: FleetKey;
  }) {
    this.appliance = init.appliance;
    this.configFile = init.configFile;
    this.emulator = init.emulator;
    this.tdb = init.tdb;
    this.bus = init.bus;
    this.fleet = init.fleet;
    this.dir = init.dir;
    this.fleetKey = init.key;
    this.planner = new PlannerService({
      store: new PgPlannerStore(init.tdb.db),
      bus: init.bus,
      config: init.fleet.config,
      fleetConfigHash: init.fleet.hash,
      log: silent,
      metrics: null,
    });
  }

  /** Starts the services, writes the fleet config, and records every step. */
  static async record(): Promise<AuditScenario> {
    const stack = await testStack();
    const hex = randomBytes(4).toString('hex');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'portolan-audit-'));
    await fs.writeFile(path.join(dir, 'fleet.key'), randomBytes(32).toString('hex'));
    await fs.writeFile(path.join(dir, 'vtm-password'), 'pw\n');
    const emulator = await startVtmEmulator({ users: { admin: 'pw' }, machines: ['vtm-1'] });
    emulator.state.put('traffic_ip_groups', 'tip-default', {
      properties: { basic: { ipaddresses: ['192.0.2.10'], machines: ['vtm-1'] } },
    });
    const tdb = await createTestDatabase(stack.postgresUrl);
    const stream = `AUDIT_${hex}`;
    const appliance = `edge-${hex}`;
    const configFile = path.join(dir, 'fleet.yaml');
    await fs.writeFile(
      configFile,
      fleetYaml({
        appliance,
        emulatorUrl: emulator.url,
        natsUrl: stack.natsUrl,
        stream,
        postgresUrl: tdb.url,
        redisUrl: stack.redisUrl,
      }),
    );
    const fleet = await loadFleetConfig(configFile);
    const bus = await NatsEventBus.open(
      stack.natsUrl,
      busDeclaration({ stream, replicas: 1, maxPayloadBytes: 1 << 20, subjectPrefix: stream }),
    );
    const s = new AuditScenario({
      appliance,
      configFile,
      emulator,
      tdb,
      bus,
      fleet,
      dir,
      key: loadFleetKey(path.join(dir, 'fleet.key'), 'k1'),
    });
    try {
      await s.planner.recover();
      await s.recordSteps();
    } catch (e) {
      await s.close();
      throw e;
    }
    return s;
  }

  /** The database the pipeline writes. */
  get db(): TestDatabase['db'] {
    return this.tdb.db;
  }

  /** The fleet-config entry of the scenario's appliance. */
  get applianceConfig(): ApplianceConfig {
    return this.fleet.config.appliances[0]!;
  }

  private async recordSteps(): Promise<void> {
    const o = this.objects;
    await this.startReplica('replica-a');
    const web = o.slice('shop', 'web-1', 'web', ['10.1.0.1', '10.1.0.2']);
    this.current.set('web-slice', web);
    const docs = o.ingress('shop', 'docs', 'docs.example.com', '/', 'docs', 80);
    this.current.set('docs', docs);
    await this.step(
      'create',
      [
        ['IngressClass', 'ADDED', o.ingressClass('portolan')],
        ...(['web', 'api', 'docs', 'blog'] as const).map((n): Change => ['Service', 'ADDED', o.service('shop', n, 80)]),
        ['EndpointSlice', 'ADDED', web],
        ['EndpointSlice', 'ADDED', o.slice('shop', 'api-1', 'api', ['10.2.0.1'])],
        ['EndpointSlice', 'ADDED', o.slice('shop', 'docs-1', 'docs', ['10.3.0.1'])],
        ['EndpointSlice', 'ADDED', o.slice('shop', 'blog-1', 'blog', ['10.4.0.1'])],
        ['Secret', 'ADDED', this.remember('web-tls', o.tlsSecret('shop', 'web-tls', CERT_V1, KEY_V1))],
        ['Ingress', 'ADDED', o.ingress('shop', 'web', 'web.example.com', '/', 'web', 80, 'web-tls')],
        ['Ingress', 'ADDED', o.ingress('shop', 'api', 'api.example.com', '/api', 'api', 80)],
        ['Ingress', 'ADDED', docs],
        ['Ingress', 'ADDED', o.ingress('shop', 'blog', 'blog.example.com', '/', 'blog', 80)],
      ],
      { listed: true },
    );
    await this.step('scale', [
      [
        'EndpointSlice',
        'MODIFIED',
        this.remember('web-slice', o.slice('shop', 'web-1', 'web', ['10.1.0.1', '10.1.0.2', '10.1.0.3', '10.1.0.4'])),
      ],
    ]);
    await this.step('tls', [
      ['Secret', 'MODIFIED', this.remember('web-tls', o.tlsSecret('shop', 'web-tls', CERT_V2, KEY_V2))],
    ]);
    await this.step('delete', [['Ingress', 'DELETED', o.touch(this.current.get('docs')!)]]);
    await this.driftStep();
    await this.failoverStep();
  }

  private readonly current = new Map<string, Record<string, unknown>>();

  private remember(key: string, object: Record<string, unknown>): Record<string, unknown> {
    this.current.set(key, object);
    return object;
  }

  /** Publishes changes (plus a heartbeat), lets the planner commit them and the leader apply; records the step. */
  private async step(name: StepName, changes: readonly Change[], options: { listed?: boolean } = {}): Promise<void> {
    await this.publishAndPlan(changes, options);
    const result = await this.leaderApplier().reconcile('snapshot');
    if (result.kind !== 'applied') throw new Error(`step ${name}: expected an apply, got ${result.kind}`);
    await this.mark(name, result.snapshotId, result.applyId);
  }

  /** Publishes changes through JetStream and runs the planner until it committed them; returns the head snapshot id. */
  async publishAndPlan(changes: readonly Change[], options: { listed?: boolean } = {}): Promise<void> {
    const now = Date.now();
    const messages: OutboundKubeMessage[] = [
      heartbeat('c1', now),
      ...changes.map(([kind, type, object]) => kubeMessage('c1', kind, type, object, this.fleetKey, now)),
    ];
    if (options.listed === true) messages.push(...listMarkers('c1', keysByKind(changes), '2000', now));
    let last = 0;
    for (const m of messages) {
      const ack = await this.bus.publish(m.subject, m.data, {
        msgId: m.msgId,
        headers: { traceparent: `00-${m.traceId}-${'b'.repeat(16)}-01` },
      });
      last = ack.seq;
    }
    // Like a running watcher, keep sending heartbeats: a batch the planner dropped after losing a head race
    // (a rollback appended meanwhile) is picked up again by the gap fill when the next message arrives.
    let target = last;
    const inflight = new Set<Promise<void>>();
    const beat = setInterval(() => {
      const hb = heartbeat('c1', Date.now());
      const p = this.bus.publish(hb.subject, hb.data, { msgId: hb.msgId }).then(
        (ack) => void (target = Math.max(target, ack.seq)),
        () => undefined,
      );
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }, 250);
    try {
      await this.consumeUntil(() => this.planner.committedPosition >= target && inflight.size === 0);
    } finally {
      clearInterval(beat);
    }
    await Promise.all(inflight);
    if (this.planner.committedPosition < target)
      await this.consumeUntil(() => this.planner.committedPosition >= target);
    if (this.planner.committedPosition < last)
      throw new Error(`the planner did not reach seq ${last} (at ${this.planner.committedPosition})`);
  }

  /** Runs the planner on the durable consumer until `done` (at most 20 s). */
  private async consumeUntil(done: () => boolean): Promise<void> {
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), 20_000);
    try {
      await this.bus.consumeBatches(
        'planner',
        async (batch) => {
          await this.planner.handleBatch(batch);
          if (done()) stop.abort();
        },
        { signal: stop.signal },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** Drift: a pool changed by hand on the appliance; the leader's drift check records it and corrects it. */
  private async driftStep(): Promise<void> {
    const pool = this.emulator.state.list('pools').find((n) => n.includes('web'));
    if (pool === undefined) throw new Error('no web pool on the emulator');
    this.emulator.state.put('pools', pool, {
      properties: { basic: { nodes_table: [{ node: '10.9.9.9:8080', state: 'active', weight: 1 }] } },
    });
    const drift = await this.leaderApplier().checkDrift();
    if (drift.kind !== 'drift') throw new Error(`drift step: expected drift, got ${drift.kind}`);
    const row = await this.db
      .selectFrom('applies')
      .select(['id', 'snapshot_id'])
      .where('appliance', '=', this.appliance)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    await this.mark('drift', String(row.snapshot_id), String(row.id));
  }

  /** Failover: the first replica stops, the second takes the lease with a new epoch and applies the next change. */
  private async failoverStep(): Promise<void> {
    const standby = await this.startReplica('replica-b', false);
    const old = this.leader!;
    await old.elector.stop();
    old.lease.close();
    await old.driver.close();
    this.replicas.splice(this.replicas.indexOf(old), 1);
    await standby.elector.waitForLeadership();
    this.leader = standby;
    await this.step('failover', [
      [
        'EndpointSlice',
        'MODIFIED',
        this.remember('web-slice', this.objects.slice('shop', 'web-1', 'web', ['10.1.0.1', '10.1.0.2', '10.1.0.3'])),
      ],
    ]);
  }

  private async startReplica(id: string, lead = true): Promise<Replica> {
    const replica = await startReplica({
      appliance: this.appliance,
      id,
      fleet: this.fleet,
      db: this.db,
      fleetKey: this.fleetKey,
    });
    this.replicas.push(replica);
    replica.elector.start();
    if (lead) {
      await replica.elector.waitForLeadership();
      this.leader = replica;
    }
    await replica.applier.init();
    return replica;
  }

  /** The applier of the replica that holds the lease. */
  leaderApplier(): Applier {
    const a = this.leader?.applier;
    if (a === undefined) throw new Error('no leader');
    return a;
  }

  /** The latest version of a remembered object (e.g. `web-slice`), to build the next change from. */
  latest(key: string): Record<string, unknown> {
    const o = this.current.get(key);
    if (o === undefined) throw new Error(`nothing remembered as ${key}`);
    return o;
  }

  private async mark(name: StepName, snapshot: string, apply: string): Promise<void> {
    await sleep(25);
    this.steps.set(name, { snapshot, apply, after: new Date() });
    await sleep(25);
  }

  /** A step's record (throws when the step did not run). */
  step_(name: StepName): StepRecord {
    const s = this.steps.get(name);
    if (s === undefined) throw new Error(`step ${name} was not recorded`);
    return s;
  }

  /**
   * Runs an audit command against the scenario's fleet config with captured output, as a non-terminal caller
   * holding the scenario's operator token (PORTOLAN_TOKEN) unless `options.env` says otherwise.
   */
  run(command: AuditCommandName, args: readonly string[], options: RunOptions = {}): Promise<CommandRun> {
    return runAuditCommand(this.configFile, this.dir, command, args, {
      ...options,
      env: options.env ?? { PORTOLAN_TOKEN: OPERATOR_TOKEN },
    });
  }

  /** Stops every replica, the emulator and the bus, and drops the database. */
  async close(): Promise<void> {
    for (const r of this.replicas) {
      await r.applier.stop().catch(() => undefined);
      await r.elector.stop().catch(() => undefined);
      r.lease.close();
      await r.driver.close().catch(() => undefined);
    }
    await this.bus.jsm.streams.delete(this.bus.declaration.kube.name).catch(() => undefined);
    await this.bus.jsm.streams.delete(this.bus.declaration.pipeline.name).catch(() => undefined);
    await this.bus.close().catch(() => undefined);
    await this.emulator.close().catch(() => undefined);
    await this.tdb.drop().catch(() => undefined);
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}
