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
export interface ExecutionContext<Vendor = unknown> {
  /** The fencing token of the leader issuing the write; drivers stamp it where the appliance can hold it. */
  readonly epoch: number;
  /**
   * The snapshot the operations were diffed from. Drivers whose appliance records requests (an audit log) stamp it
   * on every write beside the epoch, so each change on the appliance traces to one snapshot and one leader term.
   */
  readonly snapshotId?: string;
  readonly secrets: SecretResolver;
  /** Aborted when leadership is lost: a runner must stop issuing writes at once. */
  readonly signal: AbortSignal;
  /** Called as a step of sending ends (e.g. "fence", "runtime", "files"), for the caller's phase timings; optional. */
  readonly phase?: (name: string) => void;
  /**
   * Given only to drivers whose capabilities say `acceptsWriteGate`: resolves true when the leader's epoch is
   * confirmed current, false when it is not. Such a driver may read meanwhile but awaits the gate before its first
   * write, and writes nothing when it says false.
   */
  readonly writeGate?: Promise<boolean>;
  /**
   * The render the operations were diffed from, when the caller has it: a runner may write from it rather than
   * from the operations alone (HAProxy writes haproxy.cfg from the render's sections). Absent: the operations say all.
   */
  readonly target?: Vendor;
}

/** What a driver can do beyond the port's minimum; the applier branches on these, never on the driver's kind. */
export interface DriverCapabilities {
  /**
   * After every operation of an apply succeeded, the appliance holds exactly the render, so the next change may be
   * diffed against the render without reading back. False for drivers that manage objects they do not own
   * (LoadMaster Service mode binds to a virtual service someone else created): they are read back every time.
   */
  readonly renderMatchesReadBack: boolean;
  /** `executeAll` honours `ExecutionContext.writeGate`: the caller may start it before the epoch check has answered. */
  readonly acceptsWriteGate: boolean;
  /** `executeAll` sends a batch at once (HAProxy: one pipelined runtime batch, one reload); otherwise it runs in turn. */
  readonly batchExecution: boolean;
  /** `checkConfiguration` runs the appliance's own check offline; without it, it must not be called. */
  readonly configurationCheck: boolean;
}

/** How a render may place objects (see `DriverCore.provisional`). */
export interface RenderMode {
  /** Leave nothing provisional, even where that takes the appliance's slow path (HAProxy: a reload). */
  readonly tidy?: boolean;
}

/**
 * The pure half of a driver: no I/O, no clock, no memory of the appliance between calls. Whatever the appliance
 * holds reaches it as `observed`, so the same arguments always give the same result. `Vendor` is the driver's own
 * model of the objects it owns on the appliance.
 */
export interface DriverCore<Vendor> {
  readonly kind: DesiredState['driver'];
  /**
   * Renders the neutral desired state into the vendor objects this driver would own. `observed` is what the
   * appliance is known to hold (a read-back, or the render an apply fully succeeded with), or null when nothing is
   * known; drivers that place objects by what is there (HAProxy members into server slots) read it.
   */
  render(desired: DesiredState, observed: Vendor | null, mode?: RenderMode): Vendor;
  /**
   * Whether a render holds provisional placements that a tidy render would redo (HAProxy: new pools served from spare
   * backends through the Runtime API until a reload gives them backends of their own). The applier applies the tidy
   * render once the change has been served. Absent: a driver's renders are never provisional.
   */
  provisional?(rendered: Vendor): boolean;
  /** Ordered, minimal operations turning `observed` into `desired`: children first on write, parents first on delete. */
  diff(desired: Vendor, observed: Vendor): readonly Operation[];
}

/** The runner half of a driver: every call that reaches the appliance. Its state is connections and fences only. */
export interface DriverRunner<Vendor> {
  readonly capabilities: DriverCapabilities;
  /** Reads back the objects this driver owns (and the ownership marks that prove it). */
  readBack(signal: AbortSignal): Promise<Vendor>;
  /** Executes one operation; never throws for an appliance-side refusal (that is a result), only for bugs. */
  execute(operation: Operation, context: ExecutionContext<Vendor>): Promise<OperationResult>;
  /**
   * Executes operations in order, results in input order: as one batch where `capabilities.batchExecution` says so,
   * else one after the other. Never throws for an appliance-side refusal.
   */
  executeAll(operations: readonly Operation[], context: ExecutionContext<Vendor>): Promise<readonly OperationResult[]>;
  /**
   * Writes what the driver deferred after operations that reported success (HAProxy: haproxy.cfg's server lines),
   * fenced as those operations were; resolves at once when nothing is deferred. The applier calls it when it stops,
   * before it gives up the lease.
   */
  settle(): Promise<void>;
  /**
   * The addresses of the appliance's default listen address as the driver last read them back (vTM: the default
   * traffic IP group's `ipaddresses`), for Ingress status; null before any read-back, or when the driver has none.
   */
  defaultAddresses(): readonly string[] | null;
  /**
   * Runs the appliance's own check of the configuration `desired` renders to, without changing the appliance
   * (HAProxy: `haproxy -c` on a scratch copy). Only when `capabilities.configurationCheck`; otherwise it throws
   * CapabilityMissingError. The applier uses it to find which objects make the appliance refuse a configuration.
   */
  checkConfiguration(desired: DesiredState, secrets: SecretResolver): Promise<ConfigCheck>;
  /** Releases sockets and timers. */
  close(): Promise<void>;
}

/** A vendor driver: its pure half and its runner half, on one object. */
export interface ApplianceDriver<Vendor> extends DriverCore<Vendor>, DriverRunner<Vendor> {}
