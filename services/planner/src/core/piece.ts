import { canonicalJson, sha256Text } from '@portolan/desired-state';

/**
 * A snapshot piece: the canonical JSON bytes of one value and its content address, the unpadded base64url
 * SHA-256 of those bytes (43 characters: shorter than hex, which keeps a one-endpoint change small).
 */
export interface Piece {
  readonly id: string;
  readonly text: string;
}

/** The content address of text that is already canonical JSON. */
export function pieceIdOf(text: string): string {
  return sha256Text(text, 'base64url');
}

const utf8 = new TextEncoder();
/** Bytes per arena chunk: a one-endpoint change writes ~2 KB, so one chunk serves dozens of commits. */
const CHUNK = 64 * 1024;

/**
 * Where piece bytes are written: views into shared chunks, one allocation per many pieces. Written bytes are never
 * overwritten, so a view stays valid for as long as its holder keeps it (it keeps its chunk alive too).
 */
export class ByteArena {
  private chunk = new Uint8Array(0);
  private at = 0;

  /** The UTF-8 bytes of `text`: a view into the arena when the text is ASCII (pieces almost always are). */
  encode(text: string): Uint8Array {
    const n = text.length;
    if (this.chunk.length - this.at < n) {
      this.chunk = new Uint8Array(Math.max(CHUNK, n));
      this.at = 0;
    }
    const view = this.chunk.subarray(this.at, this.at + n);
    const r = utf8.encodeInto(text, view);
    // All of it read into exactly n bytes means every character was ASCII; otherwise encode it on its own.
    if (r.read !== n || r.written !== n) return utf8.encode(text);
    this.at += n;
    return view;
  }
}

/**
 * Where new pieces go while encoding: each piece's canonical JSON text and its UTF-8 bytes, by id. The id is hashed
 * from the bytes, so the text is converted to UTF-8 once for both the address and the store.
 */
export class PieceSink {
  readonly texts = new Map<string, string>();
  readonly bytes = new Map<string, Uint8Array>();
  private readonly arena: ByteArena;

  constructor(arena: ByteArena = new ByteArena()) {
    this.arena = arena;
  }

  private pendingId = '';
  private pendingText = '';
  private pendingBytes: Uint8Array = new Uint8Array(0);

  /** Records a piece given as canonical JSON text; returns its id. */
  add(text: string): string {
    const id = this.address(text);
    this.keep();
    return id;
  }

  /** The id of a piece, without recording it yet: `keep()` records it (callers skip pieces they already hold). */
  address(text: string): string {
    this.pendingText = text;
    this.pendingBytes = this.arena.encode(text);
    this.pendingId = sha256Text(this.pendingBytes, 'base64url');
    return this.pendingId;
  }

  /** Records the piece last passed to `address`. */
  keep(): void {
    this.texts.set(this.pendingId, this.pendingText);
    this.bytes.set(this.pendingId, this.pendingBytes);
  }
}

/** Encodes a value as a piece and records it in the sink. */
export function emitPiece(value: unknown, sink: PieceSink): string {
  return sink.add(canonicalJson(value));
}
