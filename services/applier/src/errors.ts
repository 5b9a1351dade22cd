import { PortolanError } from '@portolan/errors';

/** A snapshot row or piece is missing or cannot be decoded: a store fault, never user input. */
export class SnapshotLoadError extends PortolanError {
  readonly code = 'APPLIER_SNAPSHOT_LOAD_FAILED';
}

/** A Secret named by a snapshot cannot be found or opened. Never carries key material. */
export class SecretResolveError extends PortolanError {
  readonly code = 'APPLIER_SECRET_UNRESOLVED';
}
