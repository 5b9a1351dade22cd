import { PortolanError } from '@portolan/errors';

/** A stored value tree cannot be read back: a piece is missing, does not match its address, or is not a chunk. */
export class ValueTreeCorruptError extends PortolanError {
  readonly code = 'VALUE_TREE_CORRUPT';
  readonly pieceId: string;

  constructor(pieceId: string, problem: string) {
    super(`value tree piece ${pieceId} ${problem}`);
    this.pieceId = pieceId;
  }
}

/** A value canonical JSON cannot express (a non-finite number, a function, a bigint): a bug in whoever built it. */
export class NotJsonError extends PortolanError {
  readonly code = 'NOT_JSON';
}
