// The pipeline benchmark's control and checks: the same endpoint change applied by a reload (the baseline the
// Runtime API path is measured against), `portolan replay --verify`, and the appliers' own phase timings.
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ArchivedSecretResolver, PgSnapshotSource } from '@portolan/applier';
import type { DesiredState } from '@portolan/desired-state';
import { loadFleetConfig } from '@portolan/fleet-config';
import { createHaproxyDriver, toOperation } from '@portolan/haproxy-driver';
import { loadFleetKey } from '@portolan/secret-envelope';
import { summarize } from '../figure.ts';
import type { Pipeline } from './pipeline.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

/**
 * Baseline: the same one-endpoint change applied by a reload (write config, `haproxy -c`, master reload, wait for
 * the new worker), on the same HAProxy holding the same configuration. Run with the appliers stopped.
 */
export async function reloadBaseline(p: Pipeline, rounds: number): Promise<number[]> {
  const { config, baseDir } = await loadFleetConfig(p.fleetConfig);
  const appliance = config.appliances[0]!;
  const driver = createHaproxyDriver(appliance, baseDir);
  const source = new PgSnapshotSource(p.db.db);
  const secrets = new ArchivedSecretResolver(
    p.db.db,
    loadFleetKey(path.resolve(baseDir, config.secrets.keyFile), config.secrets.keyId),
  );
  const context = { epoch: 2 ** 30, secrets, signal: new AbortController().signal };
  try {
    const head = await source.head(appliance.name);
    if (head === null) throw new Error('no snapshot to take the baseline from');
    const desired = (await source.get(head.id)).desired;
    let seen = await driver.readBack(AbortSignal.timeout(60_000));
    const ms: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const bundle = driver.render(moveOneMember(desired, `10.250.${r % 250}.1`), seen);
      const op = toOperation({
        kind: 'reload',
        reasons: ['benchmark baseline: an endpoint change applied by a reload'],
        files: bundle.files,
        certificates: bundle.certificates,
        backends: bundle.backends,
      });
      const t0 = performance.now();
      const [result] = await driver.executeAll([op], { ...context, target: bundle });
      ms.push(performance.now() - t0);
      if (result?.ok !== true) throw new Error(`baseline reload failed: ${JSON.stringify(result)}`);
      seen = bundle;
    }
    return ms;
  } finally {
    await driver.close();
  }
}

/** The desired state with the first member of the first non-empty pool moved to `address`. */
function moveOneMember(desired: DesiredState, address: string): DesiredState {
  const at = desired.pools.findIndex((pool) => pool.members.length > 0);
  const pool = desired.pools[at]!;
  const pools = desired.pools.with(at, { ...pool, members: pool.members.with(0, { ...pool.members[0]!, address }) });
  return { ...desired, pools };
}

/** `portolan replay --verify -o json` against the pipeline's archive: events, seconds and mismatches. */
export async function replayVerify(
  p: Pipeline,
  nodeFlags: readonly string[] = [],
): Promise<{ events: number; seconds: number; verified: number; mismatches: number }> {
  const cli = path.join(root, 'packages', 'cli', 'bin', 'portolan.js');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...nodeFlags, cli, 'replay', '--verify', '-o', 'json', '--config', p.fleetConfig],
    { cwd: p.dir, maxBuffer: 64 << 20, timeout: 600_000 },
  ).catch((e: { stdout?: string; code?: number }) => {
    // Exit code 1 means mismatches: the JSON report is still on stdout.
    if (e.code === 1 && e.stdout) return { stdout: e.stdout };
    throw e;
  });
  const report = JSON.parse(stdout) as { events: number; seconds: number; verified: number; mismatches: unknown[] };
  return {
    events: report.events,
    seconds: report.seconds,
    verified: report.verified,
    mismatches: report.mismatches.length,
  };
}

/** Where each applier's log ends now: pass to `applyPhaseLine` to read only the cycles after this point. */
export function logOffsets(p: Pipeline): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, proc] of p.processes) if (name.startsWith('applier')) out.set(name, statSync(proc.logFile).size);
  return out;
}

/**
 * The leader's apply cycles logged since `from` (its "apply recorded" lines, operations sent), phase by phase:
 * median milliseconds per phase, then the slowest cycles' phases — where an applier-side p99 comes from.
 */
export function applyPhaseLine(p: Pipeline, from: ReadonlyMap<string, number>): string {
  const cycles: { ms: Record<string, number>; totalMs: number }[] = [];
  for (const [name, offset] of from) {
    const file = p.processes.get(name)?.logFile;
    if (file === undefined) continue;
    for (const line of readFileSync(file).subarray(offset).toString('utf8').split('\n')) {
      if (!line.includes('"apply recorded"')) continue;
      try {
        const entry = JSON.parse(line) as { operations?: number; ms?: Record<string, number>; totalMs?: number };
        if ((entry.operations ?? 0) > 0 && entry.ms !== undefined)
          cycles.push({ ms: entry.ms, totalMs: entry.totalMs ?? 0 });
      } catch {
        // not a log entry of ours
      }
    }
  }
  if (cycles.length === 0) return 'no apply cycles logged';
  const names = [...new Set(cycles.flatMap((c) => Object.keys(c.ms)))];
  const medians = names.map((k) => `${k} ${summarize(cycles.map((c) => c.ms[k] ?? 0)).median.toFixed(1)}`).join(', ');
  const slowest = [...cycles]
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, 3)
    .map(
      (c) =>
        `${c.totalMs.toFixed(0)} ms (${Object.entries(c.ms)
          .filter(([, v]) => v >= 1)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')})`,
    )
    .join('; ');
  return `${cycles.length} cycles; median ms: ${medians}; slowest: ${slowest}`;
}
