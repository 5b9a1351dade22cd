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

const utf8 = new TextEncoder();

/**
 * The UTF-8 bytes of every piece, as views into one buffer: one allocation per commit instead of one per piece
 * (pieces are ASCII almost always; one that is not gets its own exact encoding).
 */
export function pieceBytes(texts: ReadonlyMap<string, string>): Map<string, Uint8Array> {
  let total = 0;
  for (const text of texts.values()) total += text.length;
  const slab = new Uint8Array(total);
  const out = new Map<string, Uint8Array>();
  let at = 0;
  for (const [id, text] of texts) {
    const r = utf8.encodeInto(text, slab.subarray(at));
    if (r.read === text.length) {
      out.set(id, slab.subarray(at, at + r.written));
      at += r.written;
    } else {
      out.set(id, utf8.encode(text));
    }
  }
  return out;
}
