import fs from 'node:fs/promises';
import path from 'node:path';
import type {
  ApplianceDriver,
  ExecutionContext,
  Operation,
  OperationResult,
  SecretResolver,
} from '@portolan/appliance-driver';
import { toOperation, validateHaproxyConfig } from '@portolan/haproxy-driver';
import type { ApplianceConfig } from '@portolan/fleet-config';
import { loadFleetKey } from '@portolan/secret-envelope';
import { AsOfSecretResolver } from '../adapters/as-of-secret-resolver.ts';
import { progress, type CommandIo } from '../adapters/command-io.ts';
import { openReplayTarget, type ReplayTarget } from '../adapters/replay-target.ts';
import { formatReplayTable, replaySucceeded, type ReplayReport } from '../core/replay-report.ts';
import { comparableState, differingObjects, relocateHaproxyFiles, replayableState } from '../core/replay-state.ts';
import { vendorRenderer } from '../core/vendor-renderer.ts';
import { AuditUsageError, CommandFailed, ReplayTargetError } from '../errors.ts';
import { atReport } from '../api/at-report.ts';
import { desiredOf, requireAppliance, requireSnapshot, type AuditContext } from '../api/audit-context.ts';
import { commonOptions, outputFormat, parseCommand, printReport, timeOption, withContext } from './command-shell.ts';

/** `portolan replay apply --to <emulator URL | HAProxy dir> --time T [--appliance A]`: rebuild a past state elsewhere. */
export async function runReplayApply(args: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseCommand(
    args,
    {
      ...commonOptions,
      to: { type: 'string' },
      time: { type: 'string', short: 't' },
      appliance: { type: 'string', short: 'a' },
      insecure: { type: 'boolean' },
      force: { type: 'boolean' },
    },
    { min: 0, max: 0, names: '' },
  );
  const format = outputFormat(values.output);
  const time = timeOption(io, 'time', values.time);
  if (time === null) throw new AuditUsageError('--time is required');
  if (typeof values.to !== 'string')
    throw new AuditUsageError('--to is required (an emulator URL, or an HAProxy config directory)');
  const to = values.to;
  return withContext(io, 'replay apply', values.config, async (ctx) => {
    const appliance = chooseAppliance(ctx, typeof values.appliance === 'string' ? values.appliance : null);
    let target: ReplayTarget;
    try {
      target = await openReplayTarget(appliance, ctx.fleet.baseDir, to, {
        insecure: values.insecure === true,
        force: values.force === true,
      });
    } catch (e) {
      if (e instanceof ReplayTargetError) throw new CommandFailed('invalid', e.message, { cause: e });
      throw e;
    }
    try {
      const report = await replay(ctx, io, appliance, time, to, target);
      printReport(io, format, report, formatReplayTable);
      return replaySucceeded(report) ? 0 : 1;
    } finally {
      await target.driver.close();
    }
  });
}

function chooseAppliance(ctx: AuditContext, name: string | null): ApplianceConfig {
  if (name !== null) return requireAppliance(ctx, name);
  const all = ctx.fleet.config.appliances;
  if (all.length === 1) return all[0]!;
  throw new CommandFailed(
    'invalid',
    `the fleet config names several appliances (${all.map((a) => a.name).join(', ')}): pass --appliance`,
  );
}

async function replay(
  ctx: AuditContext,
  io: CommandIo,
  appliance: ApplianceConfig,
  time: Date,
  to: string,
  target: ReplayTarget,
): Promise<ReplayReport> {
  const at = await atReport(ctx, appliance.name, time);
  const snapshot = await requireSnapshot(ctx, at.snapshot.id);
  const renderer = vendorRenderer(appliance);
  let state = replayableState(renderer.kind, at.observed, renderer.render(await desiredOf(ctx, snapshot), at.observed));
  if (target.haproxyDir !== null) state = relocateHaproxyFiles(state, appliance.haproxy!.configDir, target.haproxyDir);
  const secrets = lazySecrets(ctx, snapshot.lastEventSeq);
  const context: ExecutionContext = { epoch: at.apply.epoch, secrets, signal: AbortSignal.timeout(10 * 60_000) };
  const base = {
    appliance: appliance.name,
    time: time.toISOString(),
    target: target.haproxyDir ?? to,
    apply: at.apply.id,
    snapshot: at.snapshot.id,
  };
  if (target.haproxyDir !== null && !target.haproxyRunning)
    return replayFiles(io, target.haproxyDir, appliance.haproxy!.binary, target.driver, state, context, base);
  const before = await target.driver.readBack(context.signal);
  const operations = target.driver.diff(state, before);
  const results = await execute(io, target.driver, operations, context);
  const after = await target.driver.readBack(context.signal);
  return {
    ...base,
    mode: 'driver',
    operations: results,
    remaining: target.driver.diff(state, after).length,
    identical: comparableState(renderer.kind, after) === comparableState(renderer.kind, state),
    differences: differingObjects(renderer.kind, state, after),
    validation: null,
  };
}

/** An idle HAProxy directory: the bundle's files through the driver's file operations, PEMs as of the time, then `haproxy -c`. */
async function replayFiles(
  io: CommandIo,
  dir: string,
  binary: string,
  driver: ApplianceDriver<unknown>,
  state: unknown,
  context: ExecutionContext,
  base: Omit<ReplayReport, 'mode' | 'operations' | 'remaining' | 'identical' | 'differences' | 'validation'>,
): Promise<ReplayReport> {
  const bundle = state as {
    files: { path: string; content: string }[];
    certificates: { path: string; secret: { cluster: string; kind: string; namespace: string; name: string } }[];
  };
  for (const sub of ['maps', 'crt-lists']) await fs.mkdir(path.join(dir, sub), { recursive: true });
  await fs.mkdir(path.join(dir, 'certs'), { recursive: true, mode: 0o700 });
  const results = await execute(
    io,
    driver,
    bundle.files.map((file) => toOperation({ kind: 'file', file })),
    context,
  );
  for (const cert of bundle.certificates) {
    try {
      const m = await context.secrets.resolve(cert.secret as never);
      await fs.writeFile(path.join(dir, cert.path), `${m.certificatePem.trim()}\n${m.privateKeyPem.trim()}\n`, {
        mode: 0o600,
      });
      results.push({
        summary: `certificate ${cert.path}`,
        ok: true,
        detail: `from Secret ${cert.secret.namespace}/${cert.secret.name}`,
      });
    } catch (e) {
      results.push({ summary: `certificate ${cert.path}`, ok: false, detail: (e as Error).message });
    }
  }
  const validation = await validateHaproxyConfig(binary, path.join(dir, 'haproxy.cfg')).catch((e: unknown) => ({
    ok: false as const,
    message: (e as Error).message,
  }));
  return {
    ...base,
    mode: 'files',
    operations: results,
    remaining: null,
    identical: null,
    differences: [],
    validation: validation.ok ? 'valid' : `invalid: ${validation.message}`,
  };
}

async function execute(
  io: CommandIo,
  driver: ApplianceDriver<unknown>,
  operations: readonly Operation[],
  context: ExecutionContext,
): Promise<{ summary: string; ok: boolean; detail: string }[]> {
  const bar = progress(io, 'replaying');
  const view = (o: Operation, r: OperationResult): { summary: string; ok: boolean; detail: string } => ({
    summary: o.summary,
    ok: r.ok,
    detail: r.ok ? r.detail : `${r.code}: ${r.message}`,
  });
  try {
    if (driver.executeAll !== undefined && operations.length > 0) {
      const results = await driver
        .executeAll(operations, context)
        .catch((e: unknown) => operations.map(() => thrown(e)));
      return operations.map((o, i) =>
        view(o, results[i] ?? { ok: false, code: 'NotExecuted', message: 'no result', retryable: false }),
      );
    }
    const out: { summary: string; ok: boolean; detail: string }[] = [];
    for (const [i, o] of operations.entries()) {
      bar.tick(i, operations.length);
      out.push(view(o, await driver.execute(o, context).catch((e: unknown) => thrown(e))));
    }
    return out;
  } finally {
    bar.done();
  }
}

/** A driver or secret failure as a failed result: the replay reports it and carries on (messages never hold material). */
function thrown(e: unknown): OperationResult {
  return {
    ok: false,
    code: (e as { code?: string }).code ?? 'DRIVER_THREW',
    message: e instanceof Error ? e.message : String(e),
    retryable: false,
  };
}

/** Secrets as of the replayed snapshot; the fleet key is read only if a certificate is actually pushed. */
function lazySecrets(ctx: AuditContext, maxSeq: number): SecretResolver {
  let resolver: AsOfSecretResolver | null = null;
  return {
    resolve: (secret) => {
      resolver ??= new AsOfSecretResolver(
        ctx.db,
        loadFleetKey(ctx.fleet.config.secrets.keyFile, ctx.fleet.config.secrets.keyId),
        maxSeq,
      );
      return resolver.resolve(secret);
    },
  };
}
