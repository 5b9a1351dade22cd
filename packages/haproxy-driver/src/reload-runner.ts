import fs from 'node:fs/promises';
import path from 'node:path';
import type { OperationResult, SecretResolver } from '@portolan/appliance-driver';
import type { HaproxyOperation } from './core/haproxy-operations.ts';
import type { BackendSlots } from './core/haproxy-bundle.ts';
import { diffSlots } from './core/diff-slots.ts';
import { spareMode } from './core/spare-backends.ts';
import { parseServersState } from './core/parse-servers-state.ts';
import { CONFIG_FILE, SERVER_STATE_FILE } from './core/render-haproxy-bundle.ts';
import type { HaproxyMasterClient } from './adapters/haproxy-master-client.ts';
import type { HaproxyRuntimeClient } from './adapters/haproxy-runtime-client.ts';
import {
  pruneCertificates,
  readCertificateIndex,
  restoreSnapshot,
  snapshotFiles,
  writeBundleFiles,
  writeCertificate,
  writeFileAtomic,
} from './adapters/haproxy-config-files.ts';
import { validateHaproxyConfig } from './adapters/validate-haproxy-config.ts';
import { applySlotChanges, resolvePem, secretUnavailable } from './runtime-batch.ts';
import { HaproxySocketError } from './errors.ts';

/** What a reload needs: where the files live and how to reach the running HAProxy. */
export interface ReloadTarget {
  readonly configDir: string;
  readonly binary: string;
  readonly runtime: HaproxyRuntimeClient;
  readonly master: HaproxyMasterClient;
  readonly reloadTimeoutMs: number;
  /**
   * Re-checks the writer's right to write (epoch fence, leadership signal) just before each side effect: a leader
   * paused mid-reload and resumed after a successor applied must not finish its stale reload.
   */
  readonly fence?: () => Promise<OperationResult | null>;
}

/** A finished reload attempt: its result, and the new worker's pid when one took over. */
export interface ReloadRun {
  readonly result: OperationResult;
  readonly reloaded: boolean;
  readonly workerPid: number | null;
}

type ReloadOperation = Extract<HaproxyOperation, { kind: 'reload' }>;

/**
 * Structural change, in this order: write the certificates and files; bring the surviving slots up to date and dump
 * `show servers state` to the state file; master `reload` with `haproxy -c` beside it; wait for `show proc` to show
 * a fresh worker; then bring every slot to its desired content (drain and weights are not expressible in the file).
 * A failed reload restores the previous files — the previous configuration keeps serving and the next reload would
 * load it again — and is reported as a failed result, named by `haproxy -c`'s message when the check refused it.
 */
export async function runReload(
  target: ReloadTarget,
  op: ReloadOperation,
  secrets: SecretResolver,
): Promise<ReloadRun> {
  const before = (await target.fence?.()) ?? null;
  if (before !== null) return { result: before, reloaded: false, workerPid: null };
  const snapshot = await snapshotFiles(target.configDir);
  const undo = async (result: OperationResult): Promise<ReloadRun> => {
    await restoreSnapshot(target.configDir, snapshot);
    return { result, reloaded: false, workerPid: null };
  };
  let reloadSent = false;
  try {
    const prepared = await prepareReload(target, op, secrets);
    if (prepared !== null) return await undo(prepared);
    const fenced = (await target.fence?.()) ?? null;
    if (fenced !== null) return await undo(fenced);
    target.runtime.disconnect();
    reloadSent = true;
    // `haproxy -c` runs beside the reload, on the core the new worker's parse leaves idle: the master refuses the
    // same configuration the check does (and keeps the old worker serving), the check only says why.
    const [validation, outcome] = await Promise.all([
      validateHaproxyConfig(target.binary, path.join(target.configDir, CONFIG_FILE)),
      target.master.reload(target.reloadTimeoutMs),
    ]);
    if (outcome.ok) return await finishReload(target, op, outcome.workerPid);
    if (!validation.ok) {
      return await undo({
        ok: false,
        code: 'ConfigInvalid',
        message: `haproxy -c refused the new configuration: ${validation.message}; the previous configuration keeps serving`,
        retryable: false,
      });
    }
    return await undo({
      ok: false,
      code: outcome.reason === 'failed' ? 'ReloadFailed' : 'ReloadTimeout',
      message: `${outcome.message}; the previous configuration keeps serving`,
      retryable: true,
    });
  } catch (error) {
    // Once `reload` is sent the new files may be what runs: keep them.
    if (!reloadSent) await restoreSnapshot(target.configDir, snapshot);
    if (!(error instanceof HaproxySocketError)) throw error;
    return {
      result: { ok: false, code: 'HaproxyUnavailable', message: error.message, retryable: true },
      reloaded: false,
      workerPid: null,
    };
  }
}

/** Writes the new files and carries runtime state over; a failed result when it must stop. */
async function prepareReload(
  target: ReloadTarget,
  op: ReloadOperation,
  secrets: SecretResolver,
): Promise<OperationResult | null> {
  const certFailure = await writeCertificates(target.configDir, op, secrets);
  if (certFailure !== null) return certFailure;
  await writeBundleFiles(target.configDir, op.files);
  const running = parseServersState(await target.runtime.command('show servers state'));
  await carryRuntimeState(target, op, running);
  return null;
}

async function finishReload(target: ReloadTarget, op: ReloadOperation, workerPid: number): Promise<ReloadRun> {
  await pruneCertificates(target.configDir, new Set(op.certificates.map((c) => c.path)));
  // The dump has done its job; left in place it would override newer slot ports at a later cold start.
  await writeFileAtomic(path.join(target.configDir, SERVER_STATE_FILE), '1\n');
  const detail = `reloaded (worker ${workerPid}): ${op.reasons.join('; ')}`;
  try {
    const observed = parseServersState(await target.runtime.command('show servers state'));
    const refused = await applySlotChanges(target.runtime, diffSlots(op.backends, observed));
    if (refused.length > 0) {
      return {
        result: {
          ok: false,
          code: 'SlotSyncFailed',
          message: `${detail}, but slots were refused: ${refused.slice(0, 3).join('; ')}`,
          retryable: true,
        },
        reloaded: true,
        workerPid,
      };
    }
  } catch (error) {
    if (!(error instanceof HaproxySocketError)) throw error;
    return {
      result: { ok: false, code: 'SlotSyncFailed', message: `${detail}, but ${error.message}`, retryable: true },
      reloaded: true,
      workerPid,
    };
  }
  return { result: { ok: true, detail }, reloaded: true, workerPid };
}

/**
 * Updates slots that survive the reload (from the running worker's `before`), then saves the runtime state HAProxy
 * loads back after it. A spare's slots are not freed here: until the new worker runs, the old one's maps still send
 * a bridged pool's requests to its spare (they are freed in the new worker once it runs).
 */
async function carryRuntimeState(target: ReloadTarget, op: ReloadOperation, before: BackendSlots[]): Promise<void> {
  const changes = diffSlots(op.backends, before, true).filter(
    (c) => !(c.slot.state === 'maint' && spareMode(c.backend) !== null),
  );
  await applySlotChanges(target.runtime, changes);
  const state = await target.runtime.command('show servers state');
  await writeFileAtomic(path.join(target.configDir, SERVER_STATE_FILE), `${state}\n`);
}

/** Writes every certificate whose material changed (or is missing); null when all are in place. */
async function writeCertificates(
  configDir: string,
  op: ReloadOperation,
  secrets: SecretResolver,
): Promise<OperationResult | null> {
  const index = await readCertificateIndex(configDir);
  for (const cert of op.certificates) {
    if (index.get(cert.path) === cert.fingerprint && (await exists(path.join(configDir, cert.path)))) continue;
    const pem = await resolvePem(secrets, cert.secret);
    if (pem === null) return secretUnavailable(cert.secret.namespace, cert.secret.name);
    await writeCertificate(configDir, cert.path, pem, cert.fingerprint);
  }
  return null;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
