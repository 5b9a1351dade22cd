import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ApplianceDriver, ExecutionContext, Operation, OperationResult } from '@portolan/appliance-driver';
import type { DesiredState } from '@portolan/desired-state';
import type { ApplianceConfig } from '@portolan/fleet-config';
import { executeOperation } from './adapters/execute-operation.ts';
import { readOwnedObjects } from './adapters/read-owned-objects.ts';
import { VtmRestClient } from './adapters/vtm-rest-client.ts';
import { diffVtm } from './core/diff-vtm.ts';
import { renderVtm } from './core/render-vtm.ts';
import type { VtmObjects } from './core/vtm-objects.ts';

/** Everything a vTM driver needs to reach and configure one appliance. */
export interface VtmDriverOptions {
  readonly appliance: string;
  readonly url: string;
  readonly username: string;
  readonly password: string;
  readonly apiVersion?: string;
  readonly defaultTrafficIpGroup?: string | null;
  /** Traffic managers hosting our traffic IP groups; omitted → all traffic managers, discovered at read-back. */
  readonly machines?: readonly string[];
  readonly insecureTls?: boolean;
  readonly ca?: string;
}

/** Raised when an appliance entry cannot configure a vTM driver (wrong driver, unreadable password file). */
export class VtmDriverConfigError extends Error {
  readonly code = 'VTM_DRIVER_CONFIG';
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'VtmDriverConfigError';
  }
}

/** The vTM ApplianceDriver: pure render and diff (seed 003), REST read-back of owned objects, one call per operation. */
export class VtmDriver implements ApplianceDriver<VtmObjects> {
  readonly kind = 'vtm' as const;
  readonly client: VtmRestClient;
  readonly #options: VtmDriverOptions;
  #machines: readonly string[] | null;

  constructor(options: VtmDriverOptions) {
    this.#options = options;
    this.#machines = options.machines ?? null;
    this.client = new VtmRestClient({
      url: options.url,
      apiVersion: options.apiVersion ?? '8.3',
      username: options.username,
      password: options.password,
      ...(options.insecureTls === undefined ? {} : { insecureTls: options.insecureTls }),
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    });
  }

  /** Renders the desired state into the vTM objects this driver owns. */
  render(desired: DesiredState): VtmObjects {
    return renderVtm(desired, {
      appliance: this.#options.appliance,
      defaultTrafficIpGroup: this.#options.defaultTrafficIpGroup ?? null,
      machines: this.#machines ?? [],
    });
  }

  /** Reads back owned objects; the first call also learns the cluster's traffic managers when none are configured. */
  async readBack(signal: AbortSignal): Promise<VtmObjects> {
    if (this.#machines === null) this.#machines = await this.client.listNames('traffic_managers', signal);
    return readOwnedObjects(this.client, this.#options.appliance, signal);
  }

  /** Ordered, minimal operations (children first on write, parents first on delete). */
  diff(desired: VtmObjects, observed: VtmObjects): readonly Operation[] {
    return diffVtm(desired, observed);
  }

  /** Executes one operation as one REST call (SSL keys: a read of the key hash, then the write). */
  execute(operation: Operation, context: ExecutionContext): Promise<OperationResult> {
    return executeOperation(this.client, operation, context);
  }

  /** Closes keep-alive connections. */
  async close(): Promise<void> {
    this.client.close();
  }
}

/** Builds a driver from a fleet-config appliance entry; the password comes from `passwordFile` (relative to `baseDir`). */
export async function createVtmDriver(appliance: ApplianceConfig, baseDir = process.cwd()): Promise<VtmDriver> {
  const vtm = appliance.vtm;
  if (appliance.driver !== 'vtm' || vtm === undefined) throw new VtmDriverConfigError(`appliance "${appliance.name}" is not a vtm appliance`);
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
  });
}
