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
const utf8Decoder = new TextDecoder();
/** Bytes per arena chunk: a one-endpoint change writes ~2 KB, so one chunk serves dozens of commits. */
const CHUNK = 64 * 1024;
/** Below this length a char loop beats the native call's overhead. */
const SHORT = 12;

/**
 * Where piece bytes are written: views into shared chunks, one allocation per many pieces. Written bytes are never
 * overwritten, so a view stays valid for as long as its holder keeps it (it keeps its chunk alive too). A piece is
 * either encoded from text (`encode`) or written directly as ASCII (`reserve`, `ascii`, `byte`, `take`).
 */
export class ByteArena {
  /** A Buffer (a Uint8Array) for its native `write(s, at, 'latin1')`: 43-character ids copy ~4x faster than a char loop. */
  private chunk: Buffer = Buffer.alloc(0);
  /** Start of the piece being written. */
  private at = 0;
  /** Write position. */
  private pos = 0;

  /** The UTF-8 bytes of `text`: a view into the arena when the text is ASCII (pieces almost always are). */
  encode(text: string): Uint8Array {
    const n = text.length;
    this.reserve(n);
    const view = this.view(n);
    const r = utf8.encodeInto(text, view);
    // All of it read into exactly n bytes means every character was ASCII; otherwise encode it on its own.
    if (r.read !== n || r.written !== n) return utf8.encode(text);
    this.at = this.pos = this.at + n;
    return view;
  }

  /** Starts a piece of at most `n` bytes (written with `ascii` and `byte`, ended by `take`). */
  reserve(n: number): void {
    if (this.chunk.length - this.at >= n) return;
    this.chunk = Buffer.alloc(Math.max(CHUNK, n));
    this.at = this.pos = 0;
  }

  /** Appends a string known to be ASCII (ids, JSON punctuation). */
  ascii(s: string): void {
    if (s.length >= SHORT) {
      this.pos += this.chunk.write(s, this.pos, 'latin1');
      return;
    }
    const chunk = this.chunk;
    let p = this.pos;
    for (let i = 0; i < s.length; i++) chunk[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** Appends bytes (e.g. UTF-8 encoded once and kept by the caller). */
  bytes(b: Uint8Array): void {
    this.chunk.set(b, this.pos);
    this.pos += b.length;
  }

  /** Appends a piece id as a JSON string, or null (ids are base64url: nothing to escape). */
  jsonId(id: string | null): void {
    if (id === null) this.ascii('null');
    else {
      this.byte(0x22);
      this.ascii(id);
      this.byte(0x22);
    }
  }

  /** Writes one piece: `before`, an id as a JSON string (or null), and `after`; returns its bytes. */
  splice(before: Uint8Array, id: string | null, after: Uint8Array): Uint8Array {
    this.reserve(before.length + after.length + (id === null ? 4 : id.length + 2));
    this.bytes(before);
    this.jsonId(id);
    this.bytes(after);
    return this.take();
  }

  /** Appends one byte. */
  byte(b: number): void {
    this.chunk[this.pos++] = b;
  }

  /** Ends the piece being written; returns its bytes. */
  take(): Uint8Array {
    const view = this.view(this.pos - this.at);
    this.at = this.pos;
    return view;
  }

  /** `n` bytes from the start of the piece being written, as a plain Uint8Array: Buffer's subarray builds a Buffer
   * through the species constructor, ~1 µs per piece. */
  private view(n: number): Uint8Array {
    return new Uint8Array(this.chunk.buffer, this.chunk.byteOffset + this.at, n);
  }
}

/**
 * Where new pieces go while encoding: each piece's UTF-8 bytes by id (its text is decoded only when asked for). The
 * id is hashed from the bytes, so a piece is converted to UTF-8 once for both its address and the store.
 */
export class PieceSink {
  readonly bytes = new Map<string, Uint8Array>();
  readonly arena: ByteArena;
  /** False: pieces are addressed but not recorded (`bytes` stays empty), for callers that want only the root. */
  readonly keepsPieces: boolean;
  private pendingId = '';
  private pendingBytes: Uint8Array = new Uint8Array(0);
  private decoded: Map<string, string> | null = null;

  constructor(arena: ByteArena = new ByteArena(), keepsPieces = true) {
    this.arena = arena;
    this.keepsPieces = keepsPieces;
  }

  /** Records a piece given as canonical JSON text; returns its id. */
  add(text: string): string {
    const id = this.address(text);
    this.keep();
    return id;
  }

  /** Records a piece already written to the arena (`arena.take()`); returns its id. */
  addBytes(bytes: Uint8Array): string {
    const id = sha256Text(bytes, 'base64url');
    if (this.keepsPieces) this.bytes.set(id, bytes);
    return id;
  }

  /**
   * The id of a piece (canonical JSON text, or its bytes already written to the arena), without recording it yet:
   * `keep()` records it (callers skip pieces they already hold).
   */
  address(text: string | Uint8Array): string {
    this.pendingBytes = typeof text === 'string' ? this.arena.encode(text) : text;
    this.pendingId = sha256Text(this.pendingBytes, 'base64url');
    return this.pendingId;
  }

  /** Records the piece last passed to `address`. */
  keep(): void {
    if (this.keepsPieces) this.bytes.set(this.pendingId, this.pendingBytes);
  }

  /** The pieces as canonical JSON text, by id (decoded on first use; for from-scratch encodings and tests). */
  get texts(): ReadonlyMap<string, string> {
    if (this.decoded === null || this.decoded.size !== this.bytes.size) {
      this.decoded = new Map();
      for (const [id, b] of this.bytes) this.decoded.set(id, utf8Decoder.decode(b));
    }
    return this.decoded;
  }
}

/** Encodes a value as a piece and records it in the sink. */
export function emitPiece(value: unknown, sink: PieceSink): string {
  return sink.add(canonicalJson(value));
}
