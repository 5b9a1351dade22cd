import { readFileSync } from 'node:fs';
import path from 'node:path';
import type {
  ApplianceDriver,
  ConfigCheck,
  ExecutionContext,
  Operation,
  OperationResult,
  SecretResolver,
} from '@portolan/appliance-driver';
import type { DesiredState } from '@portolan/desired-state';
import type { ApplianceConfig } from '@portolan/fleet-config';
import type { BackendSlots, HaproxyBundle } from './core/haproxy-bundle.ts';
import {
  CONFIG_FILE,
  HaproxyRenderer,
  RUNTIME_SOCKET,
  defaultRenderTuning,
  type HaproxyRenderOptions,
} from './core/render-haproxy-bundle.ts';
import { checkHaproxyConfiguration } from './check-configuration.ts';
import { diffHaproxy } from './core/diff-haproxy.ts';
import { withSlotChanges } from './core/diff-slots.ts';
import { type HaproxyOperation, fromOperation } from './core/haproxy-operations.ts';
import type { ProcStatus } from './core/parse-show-proc.ts';
import { HaproxyMasterClient } from './adapters/haproxy-master-client.ts';
import { HaproxyRuntimeClient } from './adapters/haproxy-runtime-client.ts';
import { EPOCH_FILE, writeFileAtomic } from './adapters/haproxy-config-files.ts';
import { ServerLinesFile, sameSlots } from './server-lines-file.ts';
import { readBackHaproxy } from './read-back.ts';
import { type IndexedRuntimeOperation, runRuntimeOperations } from './runtime-batch.ts';
import { runReload } from './reload-runner.ts';
import { HaproxySocketError } from './errors.ts';

/** How long haproxy.cfg's server lines may lag the Runtime API by default (see ServerLinesFile). */
export const DEFAULT_SERVER_LINES_WRITE_DELAY_MS = 1000;

/** The `haproxy` section of an appliance in the fleet config. */
export type HaproxyApplianceConfig = NonNullable<ApplianceConfig['haproxy']>;

/** How to build a HAProxy driver. */
export interface HaproxyDriverOptions {
  readonly appliance: string;
  readonly config: HaproxyApplianceConfig;
  /** `Server` response header; default `portolan`. */
  readonly serverHeader?: string;
  /** Old workers are stopped this long after a reload at the latest; default `5m`. */
  readonly hardStopAfter?: string;
  /** How long a reload may take to show a new worker; default 30 s. */
  readonly reloadTimeoutMs?: number;
}

/**
 * The HAProxy driver: renders a desired state into a full HAProxy configuration, reads HAProxy back (files +
 * Runtime API), diffs, and applies endpoint/map/certificate changes through the Runtime API with zero reloads,
 * structural changes with one validated, verified reload.
 *
 * `render` places members into the slots they held as last seen — by `readBack`, or as changed since by this
 * driver's own successful operations — so members keep their slots even when a caller skips the read-back
 * between applies. After an apply whose results are all ok, the rendered bundle is what a read-back would
 * return (the integration tests check exactly that), so a caller may diff the next desired state against it
 * and keep the full `readBack` (≈17 ms at 1k backends) for start-up, failures and drift checks.
 */
export class HaproxyDriver implements ApplianceDriver<HaproxyBundle> {
  readonly kind = 'haproxy' as const;
  /** An apply whose operations all succeeded leaves exactly the rendered bundle (files and runtime state). */
  readonly renderMatchesReadBack = true;
  /** The epoch-file read and the worker check run while the applier's epoch check is still in flight. */
  readonly acceptsWriteGate = true;
  readonly runtime: HaproxyRuntimeClient;
  readonly master: HaproxyMasterClient;
  readonly #configDir: string;
  readonly #binary: string;
  readonly #renderer: HaproxyRenderer;
  readonly #renderOptions: HaproxyRenderOptions;
  readonly #reloadTimeoutMs: number;
  #observedSlots: readonly BackendSlots[] = [];
  #workerPid: number | null = null;
  /** The last bundle `render` returned (its objects are what the next render can reuse). */
  #lastRender: HaproxyBundle | null = null;
  /** haproxy.cfg's server lines, written after the Runtime API changes (queued for up to `serverLinesWriteDelayMs`). */
  readonly #serverLines: ServerLinesFile;
  #reloads = 0;

  constructor(options: HaproxyDriverOptions) {
    const config = options.config;
    this.#configDir = path.resolve(config.configDir);
    this.#binary = config.binary;
    this.#reloadTimeoutMs = options.reloadTimeoutMs ?? 30_000;
    this.runtime = new HaproxyRuntimeClient(path.join(this.#configDir, RUNTIME_SOCKET));
    this.master = new HaproxyMasterClient(path.resolve(config.masterSocket));
    this.#renderOptions = {
      configDir: this.#configDir,
      defaultAddress: config.address,
      sizing: { minFreeSlots: config.minFreeSlots, slotIncrement: config.slotIncrement },
      serverHeader: options.serverHeader ?? defaultRenderTuning.serverHeader,
      hardStopAfter: options.hardStopAfter ?? defaultRenderTuning.hardStopAfter,
    };
    this.#renderer = new HaproxyRenderer(this.#renderOptions);
    const delay = config.serverLinesWriteDelayMs ?? DEFAULT_SERVER_LINES_WRITE_DELAY_MS;
    this.#serverLines = new ServerLinesFile(path.join(this.#configDir, CONFIG_FILE), delay, (epoch) =>
      this.#checkEpoch(epoch),
    );
  }

  /** Reloads this driver has performed successfully (tests and benchmarks count them). */
  get reloadCount(): number {
    return this.#reloads;
  }

  /** `haproxy -c` on what `desired` renders to, in a scratch folder; the running HAProxy is not touched. */
  checkConfiguration(desired: DesiredState, secrets: SecretResolver): Promise<ConfigCheck> {
    return checkHaproxyConfiguration(desired, this.#renderOptions, this.#binary, secrets);
  }

  render(desired: DesiredState): HaproxyBundle {
    const bundle = this.#renderer.render(desired, this.#observedSlots);
    this.#lastRender = bundle;
    return bundle;
  }

  async readBack(signal: AbortSignal, options: { readonly remember?: boolean } = {}): Promise<HaproxyBundle> {
    signal.throwIfAborted();
    // The files on disk are what is read back: queued server lines go there first.
    await this.#serverLines.flush();
    await this.#followCurrentWorker();
    const observed = await readBackHaproxy(this.#configDir, this.runtime);
    if (options.remember !== false) this.#observedSlots = observed.backends;
    return observed;
  }

  diff(desired: HaproxyBundle, observed: HaproxyBundle): readonly Operation[] {
    return diffHaproxy(desired, observed);
  }

  async execute(operation: Operation, context: ExecutionContext): Promise<OperationResult> {
    const [result] = await this.executeAll([operation], context);
    return result ?? { ok: false, code: 'NotExecuted', message: 'no result', retryable: true };
  }

  /**
   * Runs operations in three groups, results in input order: runtime operations as one pipelined batch, then
   * file rewrites, then reloads. Refuses everything when a newer leader's epoch has already written here.
   */
  async executeAll(operations: readonly Operation[], context: ExecutionContext): Promise<readonly OperationResult[]> {
    // Not `new Array(n)`: map() skips the holes of a sparse array.
    const results: (OperationResult | undefined)[] = operations.map(() => undefined);
    const decoded = operations.map((op) => fromOperation(op));
    const runtimeOps: IndexedRuntimeOperation[] = [];
    decoded.forEach((op, index) => {
      if (op === null)
        results[index] = {
          ok: false,
          code: 'UnknownOperation',
          message: `not a HAProxy operation: ${operations[index]?.objectType}`,
          retryable: false,
        };
      else if (op.kind === 'server' || op.kind === 'map' || op.kind === 'ssl-cert') runtimeOps.push({ index, op });
    });
    // The epoch fence runs beside the caller's epoch check (the write gate): nothing is written before both answer.
    // Which worker runs now is asked first only when this driver does not know yet; otherwise beside the batch.
    const known = this.#workerPid !== null;
    const workerCheck =
      runtimeOps.length > 0 && known
        ? this.master.currentWorkerPid().then(
            (pid) => ({ pid }),
            (error: unknown) => ({ error }),
          )
        : null;
    const [fence, reachable, mayWrite] = await Promise.all([
      this.#checkEpoch(context.epoch, context.writeGate),
      runtimeOps.length > 0 && !known
        ? this.#followCurrentWorker().then(() => null, unavailable)
        : Promise.resolve(null),
      context.writeGate ?? Promise.resolve(true),
    ]);
    context.phase?.('fence');
    if (!mayWrite) return operations.map(() => staleEpoch(context.epoch));
    if (fence !== null) return operations.map(() => fence);
    if (runtimeOps.length > 0) {
      if (context.signal.aborted) return operations.map(() => aborted());
      if (reachable !== null) {
        for (const { index } of runtimeOps) results[index] = reachable;
        return results.map((r) => r ?? reachable);
      }
      let done = await runRuntimeOperations(this.#configDir, this.runtime, runtimeOps, context.secrets);
      const checked = await workerCheck;
      if (checked !== null && 'error' in checked) {
        const failed = unavailable(checked.error);
        for (const { index } of runtimeOps) results[index] = failed;
        return results.map((r) => r ?? failed);
      }
      if (checked !== null && checked.pid !== this.#workerPid) {
        // Someone else reloaded: the batch went to the old worker, which is draining. Send it again to the new one
        // (every runtime operation is idempotent: server settings, a whole map version, a certificate transaction).
        this.runtime.disconnect();
        this.#workerPid = checked.pid;
        done = await runRuntimeOperations(this.#configDir, this.runtime, runtimeOps, context.secrets);
      }
      for (const [index, result] of done) results[index] = result;
      const applied = runtimeOps.flatMap(({ index, op }) =>
        op.kind === 'server' && results[index]?.ok === true ? [op] : [],
      );
      this.#observedSlots = withSlotChanges(this.#observedSlots, applied);
      context.phase?.('runtime');
    }
    for (const [index, op] of decoded.entries()) {
      if (op === null || results[index] !== undefined) continue;
      const refused = await this.#fence(context);
      results[index] = refused ?? (await this.#runOne(op, context));
      context.phase?.(op.kind);
    }
    return results.map((r) => r ?? aborted());
  }

  /** The master's view of the processes (tests use it to count reloads independently of this driver). */
  showProc(): Promise<ProcStatus> {
    return this.master.showProc();
  }

  /** Writes the server lines still queued (fenced as the operations that queued them); the applier calls it when it stops. */
  settle(): Promise<void> {
    return this.#serverLines.flush();
  }

  /** Whether server lines are queued and not yet in haproxy.cfg (tests). */
  get serverLinesPending(): boolean {
    return this.#serverLines.pending;
  }

  async close(): Promise<void> {
    await this.#serverLines.flush().catch(() => undefined);
    this.#serverLines.discard();
    await this.runtime.close();
  }

  async #runOne(op: HaproxyOperation, context: ExecutionContext): Promise<OperationResult> {
    if (op.kind === 'config-slots') return this.#serverLines.patch(op.backends, this.#lastRender, context);
    // A file write or a reload starts from the files on disk (a failed reload restores them): queued lines first.
    await this.#serverLines.flush();
    if (op.kind === 'file') {
      await writeBundleFilesOne(this.#configDir, op.file.path, op.file.content);
      return { ok: true, detail: `wrote ${op.file.path}` };
    }
    if (op.kind !== 'reload')
      return { ok: false, code: 'NotExecuted', message: 'runtime operation left over', retryable: true };
    const run = await runReload(
      {
        configDir: this.#configDir,
        binary: this.#binary,
        runtime: this.runtime,
        master: this.master,
        reloadTimeoutMs: this.#reloadTimeoutMs,
        fence: () => this.#fence(context),
      },
      op,
      context.secrets,
    );
    if (run.reloaded) {
      this.#reloads += 1;
      this.#workerPid = run.workerPid;
      // Keep the render's own slot objects when the reload carried exactly them: the next render then reuses every
      // backend (and the apply log every stored piece) instead of re-rendering 10k backends once after each reload.
      this.#observedSlots = sameSlots(this.#lastRender?.backends, op.backends)
        ? this.#lastRender!.backends
        : op.backends;
      await this.#serverLines.adopt(op.files.find((f) => f.path === CONFIG_FILE)?.content, this.#lastRender);
    }
    return run.result;
  }

  /** A runtime connection opened before someone else reloaded still talks to the old worker: reconnect. */
  async #followCurrentWorker(): Promise<void> {
    const pid = await this.master.currentWorkerPid();
    if (pid !== this.#workerPid) {
      this.runtime.disconnect();
      this.#workerPid = pid;
    }
  }

  /** Refuses a write once leadership is lost or a newer epoch has written here; checked before every side effect. */
  async #fence(context: ExecutionContext): Promise<OperationResult | null> {
    if (context.signal.aborted) return aborted();
    return this.#checkEpoch(context.epoch);
  }

  /**
   * Fencing: a write with an epoch older than one already recorded here is refused; newer epochs are recorded (a
   * write: only once `gate`, the caller's own epoch check, has said yes).
   */
  async #checkEpoch(epoch: number, gate?: Promise<boolean>): Promise<OperationResult | null> {
    const file = path.join(this.#configDir, EPOCH_FILE);
    // A few bytes from the local config directory, read synchronously: four thread-pool hops of an async read cost
    // more than the read, and this runs before every write.
    const read = readEpochFile(file);
    if (!read.ok) return { ok: false, code: 'EpochUnreadable', message: read.message, retryable: true };
    const recorded = read.epoch;
    if (epoch < recorded) {
      return {
        ok: false,
        code: 'StaleEpoch',
        message: `epoch ${epoch} is older than epoch ${recorded} that already wrote here`,
        retryable: false,
      };
    }
    if (epoch > recorded) {
      if (gate !== undefined && !(await gate)) return staleEpoch(epoch);
      await writeFileAtomic(file, `${epoch}\n`);
    }
    return null;
  }
}

async function writeBundleFilesOne(configDir: string, rel: string, content: string): Promise<void> {
  if (rel.includes('..')) throw new Error(`refusing to write outside the config directory: ${rel}`);
  await writeFileAtomic(path.join(configDir, rel), content);
}

/** A failed result for "HAProxy cannot be reached"; anything else is a bug and is rethrown. */
function unavailable(error: unknown): OperationResult {
  if (!(error instanceof HaproxySocketError)) throw error;
  return { ok: false, code: 'HaproxyUnavailable', message: error.message, retryable: true };
}

/** A small file's text, or '0' when it does not exist or cannot be read (an epoch file never written). */
/**
 * The epoch that last wrote here. Fails closed: only a file that does not exist yet reads as epoch 0 (a fresh
 * appliance); an unreadable file or one that does not hold an epoch refuses the write, since taking it for 0 would
 * let any stale leader write.
 */
function readEpochFile(file: string): { ok: true; epoch: number } | { ok: false; message: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, epoch: 0 };
    return {
      ok: false,
      message: `the fencing epoch file cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}); nothing is written until it can`,
    };
  }
  const trimmed = text.trim();
  if (!/^\d{1,15}$/.test(trimmed))
    return {
      ok: false,
      message: `the fencing epoch file holds "${trimmed.slice(0, 20)}", not an epoch; nothing is written until it is repaired`,
    };
  return { ok: true, epoch: Number(trimmed) };
}

/** Refused because the caller's epoch is not current (its write gate said no). */
function staleEpoch(epoch: number): OperationResult {
  return {
    ok: false,
    code: 'StaleEpoch',
    message: `epoch ${epoch} is no longer the current epoch of this appliance group`,
    retryable: false,
  };
}

function aborted(): OperationResult {
  return { ok: false, code: 'Aborted', message: 'leadership lost before this operation ran', retryable: true };
}
