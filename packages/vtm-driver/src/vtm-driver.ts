import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
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
import type { DesiredState, JsonObject } from '@portolan/desired-state';
import { PortolanError } from '@portolan/errors';
import type { ApplianceConfig } from '@portolan/fleet-config';
import { executeOperation } from './adapters/execute-operation.ts';
import { readOwnedObjects } from './adapters/read-owned-objects.ts';
import { VtmRestClient, VtmTransportError } from './adapters/vtm-rest-client.ts';
import { diffVtm } from './core/diff-vtm.ts';
import { renderVtm } from './core/render-vtm.ts';
import type { AcmeHttpChallenge } from './core/traffic-script.ts';
import type { VtmObjects } from './core/vtm-objects.ts';

/** Everything a vTM driver needs to reach and configure one appliance. */
export interface VtmDriverOptions {
  readonly appliance: string;
  readonly url: string;
  readonly username: string;
  readonly password: string;
  readonly apiVersion?: string;
  readonly defaultTrafficIpGroup?: string | null;
  /** Traffic managers hosting our traffic IP groups; omitted → all traffic managers, listed on the first group write. */
  readonly machines?: readonly string[];
  readonly insecureTls?: boolean;
  readonly ca?: string;
  /**
   * The ACME HTTP-01 challenges pending right now (e.g. the ACME issuer's challenge store), read at every render:
   * while any are pending, port-80 services answer them first (see renderVtm's `acmeChallenges`).
   */
  readonly acmeChallenges?: () => readonly AcmeHttpChallenge[];
}

/** Raised when an appliance entry cannot configure a vTM driver (wrong driver, unreadable password file). */
export class VtmDriverConfigError extends PortolanError {
  readonly code = 'VTM_DRIVER_CONFIG';
}

/** What the vTM driver can do (see DriverCapabilities). */
const VTM_CAPABILITIES: DriverCapabilities = {
  // Every object is ours and written whole, so after a fully successful apply the appliance holds the render.
  renderMatchesReadBack: true,
  acceptsWriteGate: false,
  batchExecution: false,
  configurationCheck: false,
};

/**
 * The vTM ApplianceDriver: pure render and diff (the vTM integration's documented behaviour), REST read-back of
 * owned objects, one call per operation. The runner remembers the cluster's traffic managers and the default traffic
 * IP group's addresses; nothing of the appliance reaches `render`, whose output depends on the desired state alone
 * (and the pending ACME challenges it is configured with).
 */
export class VtmDriver implements ApplianceDriver<VtmObjects> {
  readonly kind = 'vtm' as const;
  readonly capabilities = VTM_CAPABILITIES;
  readonly client: VtmRestClient;
  readonly #options: VtmDriverOptions;
  /** Traffic managers of the cluster, learned on the first traffic IP group write when none are configured. */
  #machines: readonly string[] | null = null;
  /** The default traffic IP group's addresses, from the last read-back (Ingress status). */
  #defaultAddresses: readonly string[] | null = null;

  constructor(options: VtmDriverOptions) {
    this.#options = options;
    this.client = new VtmRestClient({
      url: options.url,
      apiVersion: options.apiVersion ?? '8.3',
      username: options.username,
      password: options.password,
      ...(options.insecureTls === undefined ? {} : { insecureTls: options.insecureTls }),
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    });
  }

  /**
   * Renders the neutral desired state into the vTM objects this driver owns: pure over (desired state, pending
   * ACME challenges), so the same inputs give the same output. `observed` is not needed: vTM objects are named
   * by what they render from, not placed by what the appliance holds.
   */
  render(desired: DesiredState, _observed: VtmObjects | null = null): VtmObjects {
    return renderVtm(
      desired,
      {
        appliance: this.#options.appliance,
        defaultTrafficIpGroup: this.#options.defaultTrafficIpGroup ?? null,
        machines: this.#options.machines ?? null,
      },
      { acmeChallenges: this.#options.acmeChallenges?.() ?? [] },
    );
  }

  /** Reads back the objects this driver owns (foreign look-alikes are listed, never returned as ours). */
  async readBack(signal: AbortSignal): Promise<VtmObjects> {
    const groups = new Map<string, readonly string[]>();
    const observed = await readOwnedObjects(this.client, this.#options.appliance, signal, groups);
    // The default group's addresses are no baseline for a diff, only what Ingress status reports: every read-back,
    // a drift check's too, refreshes them. A group missing on the appliance has no address to report.
    const group = this.#options.defaultTrafficIpGroup ?? null;
    if (group !== null) this.#defaultAddresses = groups.get(group) ?? [];
    return observed;
  }

  /** The `ipaddresses` of the default traffic IP group as last read back; null before a read-back or without one. */
  defaultAddresses(): readonly string[] | null {
    return this.#defaultAddresses;
  }

  /** Ordered, minimal operations (children first on write, parents first on delete). */
  diff(desired: VtmObjects, observed: VtmObjects): readonly Operation[] {
    return diffVtm(desired, observed);
  }

  /**
   * Executes one operation as one REST call (SSL keys: a read of the key hash, then the write). A traffic IP
   * group rendered without machines gets every traffic manager of the cluster (listed once, then cached).
   */
  async execute(operation: Operation, context: ExecutionContext): Promise<OperationResult> {
    if (
      operation.objectType === 'traffic_ip_groups' &&
      operation.action !== 'delete' &&
      this.#options.machines === undefined
    ) {
      try {
        this.#machines ??= await this.client.listNames('traffic_managers', context.signal);
      } catch (error) {
        if (error instanceof VtmTransportError)
          return { ok: false, code: error.code, message: error.message, retryable: true };
        throw error;
      }
      return executeOperation(this.client, withMachines(operation, this.#machines), context);
    }
    return executeOperation(this.client, operation, context);
  }

  /** One call per operation, in order (vTM has no batch endpoint). */
  executeAll(operations: readonly Operation[], context: ExecutionContext): Promise<readonly OperationResult[]> {
    return executeInTurn((op, ctx) => this.execute(op, ctx), operations, context);
  }

  /** Nothing is deferred: every operation is one complete call. */
  async settle(): Promise<void> {}

  /** vTM has no offline check of a whole configuration. */
  checkConfiguration(): Promise<ConfigCheck> {
    return Promise.reject(new CapabilityMissingError('vtm', 'configuration check'));
  }

  /** Closes keep-alive connections. */
  async close(): Promise<void> {
    this.client.close();
  }
}

/** The operation with `basic.machines` filled in when the rendered group left it out. */
function withMachines(operation: Operation, machines: readonly string[]): Operation {
  const properties = (operation.payload?.['properties'] ?? {}) as JsonObject;
  const basic = (properties['basic'] ?? {}) as JsonObject;
  if (basic['machines'] !== undefined) return operation;
  return {
    ...operation,
    payload: { ...operation.payload, properties: { ...properties, basic: { ...basic, machines: [...machines] } } },
  };
}

/** Builds a driver from a fleet-config appliance entry; the password comes from `passwordFile` (relative to `baseDir`). */
export async function createVtmDriver(
  appliance: ApplianceConfig,
  baseDir = process.cwd(),
  extra: { acmeChallenges?: VtmDriverOptions['acmeChallenges'] } = {},
): Promise<VtmDriver> {
  const vtm = appliance.vtm;
  if (appliance.driver !== 'vtm' || vtm === undefined)
    throw new VtmDriverConfigError(`appliance "${appliance.name}" is not a vtm appliance`);
  let password: string;
  try {
    password = (await readFile(resolve(baseDir, vtm.passwordFile), 'utf8')).replace(/\r?\n$/, '');
  } catch (cause) {
    throw new VtmDriverConfigError(`appliance "${appliance.name}": cannot read passwordFile`, { cause });
  }
  return new VtmDriver({
    appliance: appliance.name,
    url: vtm.url,
    username: vtm.username,
    password,
    apiVersion: vtm.apiVersion,
    defaultTrafficIpGroup: vtm.defaultTrafficIpGroup ?? null,
    insecureTls: vtm.insecureTls,
    ...(vtm.machines === undefined ? {} : { machines: vtm.machines }),
    ...(extra.acmeChallenges === undefined ? {} : { acmeChallenges: extra.acmeChallenges }),
  });
}
