import { PortolanError } from '@portolan/errors';

/** A leader whose epoch was superseded tried to act (a stale leader): the caller must stop and record nothing as applied. */
export class StaleEpochError extends PortolanError {
  readonly code = 'LEADER_EPOCH_STALE';
  readonly group: string;
  readonly epoch: number;
  readonly latest: number | null;
  constructor(group: string, epoch: number, latest: number | null, options?: ErrorOptions) {
    super(`epoch ${epoch} of group "${group}" is no longer current (latest ${latest ?? 'none'})`, options);
    this.group = group;
    this.epoch = epoch;
    this.latest = latest;
  }
}

/** The lease store (Redis) failed or timed out; the caller treats the lease as not renewed. */
export class LeaseStoreError extends PortolanError {
  readonly code = 'LEADER_LEASE_STORE_FAILED';
}

/** The epoch store (Postgres) failed while granting, checking or reading an epoch. */
export class EpochStoreError extends PortolanError {
  readonly code = 'LEADER_EPOCH_STORE_FAILED';
}

/** An elector's event listener threw: reported as a process warning, the lease loop goes on. */
export class LeaderListenerError extends PortolanError {
  readonly code = 'LEADER_LISTENER_FAILED';
  constructor(group: string, eventType: string, options?: ErrorOptions) {
    super(`the listener of group "${group}" threw on a "${eventType}" event`, options);
  }
}
