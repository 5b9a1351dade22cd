import path from 'node:path';
import type {
  ApplianceDriver,
  ConfigCheck,
  DriverCapabilities,
  ExecutionContext,
  Operation,
  OperationResult,
  SecretResolver,
} from '@portolan/appliance-driver';
import { textOf, type DesiredState } from '@portolan/desired-state';
import type { ApplianceConfig } from '@portolan/fleet-config';
import type { HaproxyBundle } from './core/haproxy-bundle.ts';
import {
  CONFIG_FILE,
  RUNTIME_SOCKET,
  defaultRenderTuning,
  type HaproxyRenderOptions,
  type RenderMode,
} from './core/render-haproxy-bundle.ts';
import { DEFAULT_SPARES } from './core/spare-backends.ts';
import { HaproxyCore } from './core/haproxy-core.ts';
import { checkHaproxyConfiguration } from './check-configuration.ts';
import { type HaproxyOperation, fromOperation } from './core/haproxy-operations.ts';
import type { ProcStatus } from './core/parse-show-proc.ts';
import { HaproxyMasterClient } from './adapters/haproxy-master-client.ts';
import { HaproxyRuntimeClient } from './adapters/haproxy-runtime-client.ts';
import { EPOCH_FILE, writeFileAtomic } from './adapters/haproxy-config-files.ts';
import { ServerLinesFile } from './server-lines-file.ts';
import { readBackHaproxy } from './read-back.ts';
import { type IndexedRuntimeOperation, isRuntimeOperation, runRuntimeOperations } from './runtime-batch.ts';
import { runReload } from './reload-runner.ts';
import { HaproxyPathError, HaproxySocketError } from './errors.ts';
import { aborted, readEpochFile, staleEpoch } from './epoch-file.ts';

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

/** What the HAProxy driver can do (see DriverCapabilities). */
const HAPROXY_CAPABILITIES: DriverCapabilities = {
  // An apply whose operations all succeeded leaves exactly the rendered bundle (files and runtime state).
  renderMatchesReadBack: true,
  // The epoch-file read and the worker check run while the applier's epoch check is still in flight.
  acceptsWriteGate: true,
  batchExecution: true,
  configurationCheck: true,
};

/**
 * The HAProxy driver: renders a desired state into a full HAProxy configuration (its pure half, HaproxyCore), reads
 * HAProxy back (files + Runtime API), and applies endpoint/map/certificate changes through the Runtime API with zero
 * reloads, structural changes with one validated, verified reload. The runner's state is connections, which worker
 * runs, and the server lines it deferred; what the appliance holds reaches `render` only as `observed`.
 */
export class HaproxyDriver implements ApplianceDriver<HaproxyBundle> {
  readonly kind = 'haproxy' as const;
  readonly capabilities = HAPROXY_CAPABILITIES;
  readonly core: HaproxyCore;
  readonly runtime: HaproxyRuntimeClient;
  readonly master: HaproxyMasterClient;
  readonly #configDir: string;
  readonly #binary: string;
  readonly #renderOptions: HaproxyRenderOptions;
  readonly #reloadTimeoutMs: number;
  #workerPid: number | null = null;
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
      sizing: {
        minFreeSlots: config.minFreeSlots,
        slotIncrement: config.slotIncrement,
        spareBackends: config.spareBackends ?? DEFAULT_SPARES.spareBackends,
        spareSlots: config.spareSlots ?? DEFAULT_SPARES.spareSlots,
      },
      serverHeader: options.serverHeader ?? defaultRenderTuning.serverHeader,
      hardStopAfter: options.hardStopAfter ?? defaultRenderTuning.hardStopAfter,
    };
    this.core = new HaproxyCore(this.#renderOptions);
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

  render(desired: DesiredState, observed: HaproxyBundle | null, mode?: RenderMode): HaproxyBundle {
    return this.core.render(desired, observed, mode);
  }

  provisional(bundle: HaproxyBundle): boolean {
    return this.core.provisional(bundle);
  }

  diff(desired: HaproxyBundle, observed: HaproxyBundle): readonly Operation[] {
    return this.core.diff(desired, observed);
  }

  async readBack(signal: AbortSignal): Promise<HaproxyBundle> {
    signal.throwIfAborted();
    // The files on disk are what is read back: queued server lines go there first.
    await this.#serverLines.flush();
    await this.#followCurrentWorker();
    return readBackHaproxy(this.#configDir, this.runtime);
  }

  /** The default listen address is the fleet config's, not something read back. */
  defaultAddresses(): null {
    return null;
  }

  async execute(operation: Operation, context: ExecutionContext<HaproxyBundle>): Promise<OperationResult> {
    const [result] = await this.executeAll([operation], context);
    return result ?? { ok: false, code: 'NotExecuted', message: 'no result', retryable: true };
  }

  /**
   * Runs operations in three groups, results in input order: runtime operations as one pipelined batch, then
   * file rewrites, then reloads. Refuses everything when a newer leader's epoch has already written here.
   */
  async executeAll(
    operations: readonly Operation[],
    context: ExecutionContext<HaproxyBundle>,
  ): Promise<readonly OperationResult[]> {
    const { results, decoded, runtimeOps } = decodeOperations(operations);
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

  /**
   * Releases the sockets. Queued server lines are written first; a write that fails is dropped with them (the
   * Runtime API already serves those slots, and the next leader's read-back finds the file behind and corrects it),
   * so closing never fails on it.
   */
  async close(): Promise<void> {
    await this.#serverLines.flush().catch(() => undefined);
    this.#serverLines.discard();
    await this.runtime.close();
  }

  async #runOne(op: HaproxyOperation, context: ExecutionContext<HaproxyBundle>): Promise<OperationResult> {
    const target = context.target ?? null;
    if (op.kind === 'config-slots') return this.#serverLines.patch(op.backends, target, context);
    // A file write or a reload starts from the files on disk (a failed reload restores them): queued lines first.
    await this.#serverLines.flush();
    if (op.kind === 'file') {
      await writeBundleFilesOne(this.#configDir, op.file.path, textOf(op.file.content));
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
      await this.#serverLines.adopt(op.files.find((f) => f.path === CONFIG_FILE)?.content, target);
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
  async #fence(context: ExecutionContext<HaproxyBundle>): Promise<OperationResult | null> {
    if (context.signal.aborted) return aborted();
    return this.#checkEpoch(context.epoch);
  }

  /**
   * Fencing: a write with an epoch older than one already recorded here is refused; newer epochs are recorded (a
   * write: only once `gate`, the caller's own epoch check, has said yes).
   */
  async #checkEpoch(epoch: number, gate?: Promise<boolean>): Promise<OperationResult | null> {
    const file = path.join(this.#configDir, EPOCH_FILE);
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

/**
 * The operations decoded, the runtime ones picked out (with their input positions), and a result slot per
 * operation: filled already for one that is not a HAProxy operation.
 */
function decodeOperations(operations: readonly Operation[]): {
  results: (OperationResult | undefined)[];
  decoded: (HaproxyOperation | null)[];
  runtimeOps: IndexedRuntimeOperation[];
} {
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
    else if (isRuntimeOperation(op)) runtimeOps.push({ index, op });
  });
  return { results, decoded, runtimeOps };
}

async function writeBundleFilesOne(configDir: string, rel: string, content: string): Promise<void> {
  if (rel.includes('..')) throw new HaproxyPathError(rel);
  await writeFileAtomic(path.join(configDir, rel), content);
}

/** A failed result for "HAProxy cannot be reached"; anything else is a bug and is rethrown. */
function unavailable(error: unknown): OperationResult {
  if (!(error instanceof HaproxySocketError)) throw error;
  return { ok: false, code: 'HaproxyUnavailable', message: error.message, retryable: true };
}
