import {
  CapabilityMissingError,
  type ApplianceDriver,
  type ConfigCheck,
  type DriverCapabilities,
  type ExecutionContext,
  type Operation,
  type OperationResult,
} from '@portolan/appliance-driver';
import type { DesiredState, DriverKind, JsonObject } from '@portolan/desired-state';
import { canonicalJson, compareCodeUnits } from '@portolan/desired-state';

/** The fake's vendor model: objects keyed "type/name", plain JSON. */
export type FakeObjects = Readonly<Record<string, JsonObject>>;

/** One write that reached the fake appliance, with the epoch it carried. */
export interface FakeWrite {
  readonly epoch: number;
  readonly key: string;
  readonly action: Operation['action'];
  readonly accepted: boolean;
  readonly code: string | null;
}

// Write order: certificates and pools (children) before the virtual services that use them; deletes reversed.
const typeOrder = ['certificate', 'pool', 'virtual_service'];
const rank = (key: string): number => typeOrder.indexOf(key.slice(0, key.indexOf('/')));

/**
 * An in-memory appliance for applier tests: it keeps objects, records every write with its epoch, can refuse
 * the next N writes to an object (retryable or not), and is mutated directly to simulate out-of-band drift.
 * With `fenceByEpoch` it refuses writes older than the highest epoch it saw, like an appliance with CAS.
 */
export class FakeAppliance {
  readonly objects = new Map<string, JsonObject>();
  readonly writes: FakeWrite[] = [];
  readonly fenceByEpoch: boolean;
  readBacks = 0;
  private highestEpoch = 0;
  private readonly failures = new Map<string, { times: number; retryable: boolean }>();

  constructor(options: { fenceByEpoch?: boolean } = {}) {
    this.fenceByEpoch = options.fenceByEpoch ?? false;
  }

  /** Refuses the next `times` writes to `key` (e.g. "pool/web"). */
  failNext(key: string, times: number, retryable = true): void {
    this.failures.set(key, { times, retryable });
  }

  /** Out-of-band change (drift): sets or deletes an object without any epoch. */
  tamper(key: string, value: JsonObject | null): void {
    if (value === null) this.objects.delete(key);
    else this.objects.set(key, value);
  }

  /** Applies one write. */
  write(key: string, op: Operation, epoch: number): OperationResult {
    const failure = this.failures.get(key);
    if (this.fenceByEpoch && epoch < this.highestEpoch)
      return this.log(epoch, key, op, {
        ok: false,
        code: 'STALE_EPOCH',
        message: `epoch ${epoch} < ${this.highestEpoch}`,
        retryable: false,
      });
    if (failure !== undefined && failure.times > 0) {
      failure.times--;
      return this.log(epoch, key, op, {
        ok: false,
        code: 'REFUSED',
        message: `injected failure for ${key}`,
        retryable: failure.retryable,
      });
    }
    this.highestEpoch = Math.max(this.highestEpoch, epoch);
    if (op.action === 'delete') this.objects.delete(key);
    else this.objects.set(key, { ...op.payload!, epoch });
    return this.log(epoch, key, op, { ok: true, detail: `${op.action} ${key}` });
  }

  private log(epoch: number, key: string, op: Operation, result: OperationResult): OperationResult {
    this.writes.push({ epoch, key, action: op.action, accepted: result.ok, code: result.ok ? null : result.code });
    return result;
  }
}

/** Renders a desired state into the fake's objects: one per certificate, pool and virtual service. */
export function renderFake(desired: DesiredState): FakeObjects {
  const out: Record<string, JsonObject> = {};
  for (const c of desired.certificates)
    out[`certificate/${c.name}`] = {
      secret: `${c.secret.namespace}/${c.secret.name}`,
      fingerprint: c.fingerprint,
      hosts: [...c.hosts],
    };
  for (const p of desired.pools)
    out[`pool/${p.name}`] = { members: p.members.map((m) => `${m.address}:${m.port}/${m.state}/${m.weight}`) };
  for (const v of desired.virtualServices) {
    out[`virtual_service/${v.name}`] = {
      port: v.port,
      protocol: v.protocol,
      defaultPool: v.defaultPool,
      routes: v.routes.map((r) => `${r.host}${r.path}:${r.match}->${r.pool}`),
    };
  }
  return out;
}

const strip = (o: JsonObject): string => {
  const { epoch: _epoch, ...rest } = o;
  return canonicalJson(rest);
};

/** Pure diff of fake objects: creates and updates children first, deletes parents first. */
export function diffFake(desired: FakeObjects, observed: FakeObjects): Operation[] {
  const writes: Operation[] = [];
  const deletes: Operation[] = [];
  const [objectType, objectName] = [
    (k: string): string => k.slice(0, k.indexOf('/')),
    (k: string): string => k.slice(k.indexOf('/') + 1),
  ];
  for (const key of Object.keys(desired).sort(compareCodeUnits)) {
    const want = desired[key]!;
    const have = observed[key];
    if (have !== undefined && strip(have) === strip(want)) continue;
    writes.push({
      objectType: objectType(key),
      objectName: objectName(key),
      action: have === undefined ? 'create' : 'update',
      payload: want,
      summary: `${have === undefined ? 'create' : 'update'} ${key}`,
    });
  }
  for (const key of Object.keys(observed).sort(compareCodeUnits)) {
    if (desired[key] === undefined)
      deletes.push({
        objectType: objectType(key),
        objectName: objectName(key),
        action: 'delete',
        payload: null,
        summary: `delete ${key}`,
      });
  }
  writes.sort((a, b) => rank(`${a.objectType}/`) - rank(`${b.objectType}/`));
  deletes.sort((a, b) => rank(`${b.objectType}/`) - rank(`${a.objectType}/`));
  return [...writes, ...deletes];
}

/** An ApplianceDriver over a FakeAppliance; certificate writes resolve their Secret first, like a real driver. */
export class FakeApplianceDriver implements ApplianceDriver<FakeObjects> {
  readonly kind: DriverKind;
  /**
   * With `writeGate: true` it sends in one batch, started before the epoch check answers (as the HAProxy driver
   * does); otherwise one operation at a time.
   */
  readonly capabilities: DriverCapabilities;
  readonly appliance: FakeAppliance;
  /** Secrets resolved, by reference (the material itself is dropped at once). */
  readonly resolvedSecrets: string[] = [];

  constructor(appliance: FakeAppliance, kind: DriverKind = 'haproxy', options: { readonly writeGate?: boolean } = {}) {
    this.appliance = appliance;
    this.kind = kind;
    const gated = options.writeGate === true;
    this.capabilities = {
      renderMatchesReadBack: true,
      acceptsWriteGate: gated,
      batchExecution: gated,
      configurationCheck: false,
    };
  }

  /** Pure: the fake appliance's objects are named by what they render from, whatever it holds. */
  render(desired: DesiredState, _observed: FakeObjects | null = null): FakeObjects {
    return renderFake(desired);
  }

  async executeAll(operations: readonly Operation[], context: ExecutionContext): Promise<readonly OperationResult[]> {
    if (this.capabilities.acceptsWriteGate && !(await (context.writeGate ?? Promise.resolve(true))))
      return operations.map(() => ({ ok: false, code: 'StaleEpoch', message: 'epoch not current', retryable: false }));
    const results: OperationResult[] = [];
    for (const op of operations) results.push(await this.execute(op, context));
    return results;
  }

  /** Nothing is deferred; a test that needs deferred writes replaces it. */
  async settle(): Promise<void> {}

  defaultAddresses(): null {
    return null;
  }

  checkConfiguration(): Promise<ConfigCheck> {
    return Promise.reject(new CapabilityMissingError('fake', 'configuration check'));
  }

  /** When set, every read-back takes its snapshot of the appliance at once, then waits for this before answering. */
  readBackGate: Promise<void> | null = null;

  async readBack(_signal: AbortSignal): Promise<FakeObjects> {
    this.appliance.readBacks++;
    const taken = Object.fromEntries([...this.appliance.objects].map(([k, v]) => [k, structuredClone(v)]));
    if (this.readBackGate !== null) await this.readBackGate;
    return taken;
  }

  diff(desired: FakeObjects, observed: FakeObjects): readonly Operation[] {
    return diffFake(desired, observed);
  }

  async execute(operation: Operation, context: ExecutionContext): Promise<OperationResult> {
    if (context.signal.aborted) return { ok: false, code: 'ABORTED', message: 'leadership lost', retryable: true };
    if (operation.objectType === 'certificate' && operation.action !== 'delete') {
      const [namespace, name] = String(operation.payload?.['secret']).split('/');
      const material = await context.secrets.resolve({
        cluster: 'c1',
        kind: 'Secret',
        namespace: namespace!,
        name: name!,
      });
      if (!material.privateKeyPem.includes('PRIVATE KEY'))
        return { ok: false, code: 'BAD_KEY', message: 'not a key', retryable: false };
      this.resolvedSecrets.push(`${namespace}/${name}`);
    }
    return this.appliance.write(`${operation.objectType}/${operation.objectName}`, operation, context.epoch);
  }

  async close(): Promise<void> {}
}
