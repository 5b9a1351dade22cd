import { PortolanError } from '@portolan/errors';

/** A snapshot row or piece is missing or cannot be decoded: a store fault, never user input. */
export class SnapshotLoadError extends PortolanError {
  readonly code = 'APPLIER_SNAPSHOT_LOAD_FAILED';
}

/** A Secret named by a snapshot cannot be found or opened. Never carries key material. */
export class SecretResolveError extends PortolanError {
  readonly code = 'APPLIER_SECRET_UNRESOLVED';
}

/** The ACME issuer was started for an appliance without a `vtm.acme` section: a wiring bug. */
export class AcmeConfigError extends PortolanError {
  readonly code = 'APPLIER_ACME_UNCONFIGURED';
}

/** An apply asked for on purpose (to serve ACME challenges) was recorded with another status than succeeded. */
export class ApplyNotSucceededError extends PortolanError {
  readonly code = 'APPLIER_APPLY_NOT_SUCCEEDED';
}
