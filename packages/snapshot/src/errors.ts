import { PortolanError } from '@portolan/errors';

/** A snapshot references a piece the store does not have (infrastructure fault, or a partial copy). */
export class SnapshotPieceMissingError extends PortolanError {
  readonly code = 'SNAPSHOT_PIECE_MISSING';
  readonly pieceId: string;
  constructor(pieceId: string, options?: ErrorOptions) {
    super(`snapshot piece ${pieceId} is missing`, options);
    this.pieceId = pieceId;
  }
}

/** A stored piece is not what its content address says, or not a piece of the expected shape (tampering, bug). */
export class SnapshotCorruptError extends PortolanError {
  readonly code = 'SNAPSHOT_CORRUPT';
  readonly pieceId: string;
  constructor(pieceId: string, detail: string, options?: ErrorOptions) {
    super(`snapshot piece ${pieceId} is corrupt: ${detail}`, options);
    this.pieceId = pieceId;
  }
}

/** The encoder was driven out of order (a member set before its pool, a route before its header): a planner bug. */
export class SnapshotEncoderMisuseError extends PortolanError {
  readonly code = 'SNAPSHOT_ENCODER_MISUSE';
}
