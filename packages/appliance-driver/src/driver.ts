import type { DesiredState, ObjectRef } from '@portolan/desired-state';
import type { Operation, OperationResult } from './operation.ts';

/** Decrypted TLS material for one Secret: only ever held in the applier's memory, just before a push. */
export interface TlsMaterial {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
}

/** Looks up sealed Secrets and decrypts them; implemented by the applier. */
export interface SecretResolver {
  resolve(secret: ObjectRef): Promise<TlsMaterial>;
}

/** The appliance's verdict on a configuration it was only asked to check. */
export type ConfigCheck = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** Context the applier hands to every write. */
export interface ExecutionContext {
  /** The fencing token of the leader issuing the write; drivers stamp it where the appliance can hold it. */
  readonly epoch: number;
  readonly secrets: SecretResolver;
  /** Aborted when leadership is lost: a runner must stop issuing writes at once. */
  readonly signal: AbortSignal;
  /** Called as a step of sending ends (e.g. "fence", "runtime", "files"), for the caller's phase timings; optional. */
  readonly phase?: (name: string) => void;
  /**
   * Given only to drivers that set `acceptsWriteGate`: resolves true when the leader's epoch is confirmed current,
   * false when it is not. Such a driver may read meanwhile but awaits the gate before its first write, and writes
   * nothing when it says false.
   */
  readonly writeGate?: Promise<boolean>;
}

/**
 * A vendor driver. `render` and `diff` are pure (no I/O, no clock); only `readBack` and `execute` touch the
 * appliance. `Vendor` is the driver's own model of the objects it owns on the appliance.
 */
export interface ApplianceDriver<Vendor> {
  readonly kind: DesiredState['driver'];
  /** Renders the neutral desired state into the vendor objects this driver would own. */
  render(desired: DesiredState): Vendor;
  /**
   * Reads back the objects this driver owns (and the ownership marks that prove it). With `remember: false` the
   * driver does not update what it remembers of the appliance (a drift check reading beside an apply).
   */
  readBack(signal: AbortSignal, options?: { readonly remember?: boolean }): Promise<Vendor>;
  /**
   * Optional targeted read-back for incremental applies: reads only the objects that differ between two renders
   * and returns `previous` with those objects replaced by what the appliance holds (absent ones removed). The
   * applier uses it when the last full read-back matched `previous`; start-up and the drift timer read everything.
   * It keeps a one-endpoint change at a couple of calls whatever the appliance's size.
   */
  readBackChanged?(previous: Vendor, next: Vendor, signal: AbortSignal): Promise<Vendor>;
  /**
   * True when, after every operation of an apply succeeded, the appliance holds exactly the render (so the next
   * change may be diffed against it without reading back). Drivers that manage objects they do not own (LoadMaster
   * Service mode binds to a virtual service someone else created) leave it unset and are read back every time.
   */
  readonly renderMatchesReadBack?: boolean;
  /** Ordered, minimal operations turning `observed` into `desired`: children first on write, parents first on delete. */
  diff(desired: Vendor, observed: Vendor): readonly Operation[];
  /** Executes one operation; never throws for an appliance-side refusal (that is a result), only for bugs. */
  execute(operation: Operation, context: ExecutionContext): Promise<OperationResult>;
  /** Optional batch execution for drivers that can apply many operations at once (HAProxy runtime, reload). */
  executeAll?(operations: readonly Operation[], context: ExecutionContext): Promise<readonly OperationResult[]>;
  /** The driver honours `ExecutionContext.writeGate`: the caller may start it before the epoch check has answered. */
  readonly acceptsWriteGate?: boolean;
  /**
   * Optional: writes what the driver deferred after operations that reported success (HAProxy: haproxy.cfg's
   * server lines), fenced as those operations were. The applier calls it when it stops, before it gives up the lease.
   */
  settle?(): Promise<void>;
  /**
   * Optional: the addresses of the appliance's default listen address as the driver last read them back (vTM: the
   * default traffic IP group's `ipaddresses`), for Ingress status; null before any read-back or when it has none.
   */
  defaultAddresses?(): readonly string[] | null;
  /**
   * Optional: runs the appliance's own check of the configuration `desired` renders to, without changing the
   * appliance (HAProxy: `haproxy -c` on a scratch copy). The applier uses it to find which objects make the appliance
   * refuse a configuration, so those alone are refused and everything else is applied.
   */
  checkConfiguration?(desired: DesiredState, secrets: SecretResolver): Promise<ConfigCheck>;
  /** Releases sockets and timers. */
  close(): Promise<void>;
}
