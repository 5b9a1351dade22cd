import { canonicalJson, sha256Text } from '@portolan/desired-state';

/**
 * A snapshot piece: the canonical JSON bytes of one value and its content address, the unpadded base64url
 * SHA-256 of those bytes (43 characters: shorter than hex, which keeps a one-endpoint change small).
 */
export interface Piece {
  readonly id: string;
  readonly text: string;
}

/** Where new pieces go while encoding: id → canonical JSON text. */
export type PieceSink = Map<string, string>;

/** Encodes a value as a piece and records it in the sink. */
export function emitPiece(value: unknown, sink: PieceSink): string {
  const text = canonicalJson(value);
  const id = sha256Text(text, 'base64url');
  sink.set(id, text);
  return id;
}

/** The content address of text that is already canonical JSON. */
export function pieceIdOf(text: string): string {
  return sha256Text(text, 'base64url');
}
