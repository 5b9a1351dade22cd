/** A snapshot row or piece is missing or cannot be decoded: a store fault, never user input. */
export class SnapshotLoadError extends Error {
  readonly code = 'APPLIER_SNAPSHOT_LOAD_FAILED';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SnapshotLoadError';
  }
}

/** A Secret named by a snapshot cannot be found or opened. Never carries key material. */
export class SecretResolveError extends Error {
  readonly code = 'APPLIER_SECRET_UNRESOLVED';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SecretResolveError';
  }
}

/** No driver is registered for an appliance's driver kind, or its package does not load. */
export class DriverLoadError extends Error {
  readonly code = 'APPLIER_DRIVER_UNAVAILABLE';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DriverLoadError';
  }
}
