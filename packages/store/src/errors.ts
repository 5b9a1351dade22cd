import { PortolanError } from '@portolan/errors';

/** A row names stored data that is not there (a value tree missing from `snapshot_pieces`): a partial copy or a bug. */
export class StoredDataMissingError extends PortolanError {
  readonly code = 'STORE_DATA_MISSING';
}
