import {
  CapabilityMissingError,
  executeInTurn,
  type ApplianceDriver,
  type ConfigCheck,
  type DriverCapabilities,
  type ExecutionContext,
  type Operation,
  type OperationResult,
} from '@portolan/appliance-driver';
import type { DesiredState } from '@portolan/desired-state';
import { PortolanError } from '@portolan/errors';
import type { LmVendorState } from './core/lm-vendor-state.ts';
import type { LmIndexMap } from './core/parse-read-back.ts';
import { parseReadBack } from './core/parse-read-back.ts';
import { renderVendorState } from './core/render-vendor-state.ts';
import { diffVendorState } from './core/diff-vendor-state.ts';
import type { LoadMasterCredentials } from './adapters/loadmaster-client.ts';
import { LoadMasterClient, LoadMasterTransportError } from './adapters/loadmaster-client.ts';
import { OperationRunner } from './adapters/operation-runner.ts';
import type { CallThrottle } from './adapters/call-throttle.ts';

/** Settings of one LoadMaster driver instance (the fleet config's `loadmaster` section, credentials resolved). */
export interface LoadMasterDriverOptions {
  /** Fleet-config appliance name: part of every ownership mark. */
  readonly appliance: string;
  readonly url: string;
  readonly credentials: LoadMasterCredentials;
  readonly insecureTls: boolean;
  /** Stay under the appliance's 30 calls in 3 s (fleet config default 25). */
  readonly maxCallsPer3s: number;
  /** VS address for Ingress-mode listeners with the `default` address. */
  readonly defaultAddress: string | null;
  /** A throttle shared with other drivers of the same LoadMaster (default: one of its own). */
  readonly throttle?: CallThrottle;
}

/** Raised when the LoadMaster cannot be read back (the applier retries; nothing was written). */
export class LoadMasterReadBackError extends PortolanError {
  readonly code = 'LOADMASTER_READ_BACK';
}

/** What the LoadMaster driver can do (see DriverCapabilities). */
const LOADMASTER_CAPABILITIES: DriverCapabilities = {
  // Service mode binds to virtual services someone else created: the render is not all the appliance holds.
  renderMatchesReadBack: false,
  acceptsWriteGate: false,
  batchExecution: false,
  configurationCheck: false,
};

/**
 * The Kemp LoadMaster driver (its Ingress controller's documented behaviour): Service mode (DesiredState.bindings → real servers of existing VSs)
 * and Ingress mode (VirtualServices → owned VS/SubVS/rules/real servers/certificates), over the v2 JSON API.
 */
export class LoadMasterDriver implements ApplianceDriver<LmVendorState> {
  readonly kind = 'loadmaster' as const;
  readonly capabilities = LOADMASTER_CAPABILITIES;
  readonly #options: LoadMasterDriverOptions;
  readonly #client: LoadMasterClient;
  readonly #runner: OperationRunner;

  constructor(options: LoadMasterDriverOptions) {
    this.#options = options;
    this.#client = new LoadMasterClient({
      url: options.url,
      credentials: options.credentials,
      insecureTls: options.insecureTls,
      maxCallsPer3s: options.maxCallsPer3s,
      ...(options.throttle === undefined ? {} : { throttle: options.throttle }),
    });
    this.#runner = new OperationRunner(this.#client, async (signal) => (await this.#read(signal)).indexes);
  }

  /** API calls sent so far (reads included). */
  get callCount(): number {
    return this.#client.callCount;
  }

  /** Pure; `observed` is not needed (appliance indexes are looked up by the runner when an operation runs). */
  render(desired: DesiredState, _observed: LmVendorState | null = null): LmVendorState {
    return renderVendorState(desired, {
      appliance: this.#options.appliance,
      defaultAddress: this.#options.defaultAddress,
    });
  }

  async readBack(signal: AbortSignal): Promise<LmVendorState> {
    const { state, indexes } = await this.#read(signal);
    this.#runner.indexes = indexes;
    return state;
  }

  diff(desired: LmVendorState, observed: LmVendorState): readonly Operation[] {
    return diffVendorState(desired, observed);
  }

  execute(operation: Operation, context: ExecutionContext): Promise<OperationResult> {
    return this.#runner.run(operation, context);
  }

  /** One call per operation, in order, under the appliance's call budget. */
  executeAll(operations: readonly Operation[], context: ExecutionContext): Promise<readonly OperationResult[]> {
    return executeInTurn((op, ctx) => this.execute(op, ctx), operations, context);
  }

  /** Nothing is deferred: every operation is complete when it returns. */
  async settle(): Promise<void> {}

  /** The Ingress status address comes from the fleet config, not from a read-back. */
  defaultAddresses(): null {
    return null;
  }

  /** LoadMaster has no offline check of a whole configuration. */
  checkConfiguration(): Promise<ConfigCheck> {
    return Promise.reject(new CapabilityMissingError('loadmaster', 'configuration check'));
  }

  async close(): Promise<void> {
    this.#client.close();
  }

  /** Three calls: listvs (VSs, SubVSs, real servers, rule assignments), showrule, listcert. */
  async #read(signal: AbortSignal): Promise<{ state: LmVendorState; indexes: LmIndexMap }> {
    const bodies = [];
    for (const cmd of ['listvs', 'showrule', 'listcert']) {
      let reply;
      try {
        reply = await this.#client.call(cmd, {}, signal);
      } catch (error) {
        if (error instanceof LoadMasterTransportError)
          throw new LoadMasterReadBackError(`read-back ${cmd} failed: ${error.message}`, { cause: error });
        throw error;
      }
      if (!reply.ok) throw new LoadMasterReadBackError(`read-back ${cmd} refused: ${reply.status} ${reply.message}`);
      bodies.push(reply.body);
    }
    const [listvs = {}, showrule = {}, listcert = {}] = bodies;
    return parseReadBack(this.#options.appliance, listvs, showrule, listcert);
  }
}
