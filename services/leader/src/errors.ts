/** A leader whose epoch was superseded tried to act (a stale leader): the caller must stop and record nothing as applied. */
export class StaleEpochError extends Error {
  readonly code = 'LEADER_EPOCH_STALE';
  readonly group: string;
  readonly epoch: number;
  readonly latest: number | null;
  constructor(group: string, epoch: number, latest: number | null, options?: ErrorOptions) {
    super(`epoch ${epoch} of group "${group}" is no longer current (latest ${latest ?? 'none'})`, options);
    this.name = 'StaleEpochError';
    this.group = group;
    this.epoch = epoch;
    this.latest = latest;
  }
}

/** The lease store (Redis) failed or timed out; the caller treats the lease as not renewed. */
export class LeaseStoreError extends Error {
  readonly code = 'LEADER_LEASE_STORE_FAILED';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LeaseStoreError';
  }
}

/** The epoch store (Postgres) failed while granting or checking an epoch. */
export class EpochStoreError extends Error {
  readonly code = 'LEADER_EPOCH_STORE_FAILED';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EpochStoreError';
  }
}
