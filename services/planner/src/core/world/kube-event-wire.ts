/**
 * A direct reader of the `portolan.v1.KubeEvent` wire format, for the fold's hot path (a 10k-Service archive is
 * 30,000 of them): the generic reflective decoder spends most of a message's decode building and filling its message
 * object. It reads only the plain encodings the watcher writes; anything else (a field met with another wire type,
 * groups, a repeated `observed_at`, numbers beyond 2^53 or negative, a truncated message) returns null and the caller
 * decodes with the generic decoder, so the result is the generic decoder's for every input.
 */

/** The fields of a KubeEvent as the generic decoder gives them (enums as numbers; uint64 and Timestamp as numbers). */
export interface KubeEventFields {
  cluster: string;
  kind: number;
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  type: number;
  object: Uint8Array;
  listGeneration: number;
  /** `observed_at` in milliseconds as `timestampMs` computes it; 0 when absent. */
  observedAtMs: number;
  omittedReason: string;
  noticedByRelist: boolean;
}

/** Strict, as the generic decoder reads proto3 strings: invalid UTF-8 is an error, not U+FFFD. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const EMPTY = new Uint8Array(0);

/** Wire types of proto3's plain encodings. */
const VARINT = 0;
const LEN = 2;

/** Which wire type each KubeEvent field number has (index: field number; -1 unknown to this reader). */
const FIELD_WIRE = [-1, LEN, VARINT, LEN, LEN, LEN, LEN, VARINT, LEN, VARINT, LEN, LEN, VARINT];

/** A cursor over one message's bytes; `bad` is set on anything the fast path leaves to the generic decoder. */
class Cursor {
  pos: number;
  bad = false;
  readonly end: number;
  readonly b: Uint8Array;

  constructor(b: Uint8Array, pos: number, end: number) {
    this.b = b;
    this.pos = pos;
    this.end = end;
  }

  /** A varint of at most 2^53 - 1 (larger, negative or truncated: `bad`, and 0). */
  varint(): number {
    const b = this.b;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      if (this.pos >= this.end) break;
      const byte = b[this.pos++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result <= Number.MAX_SAFE_INTEGER ? result : this.fail();
      scale *= 128;
    }
    return this.fail();
  }

  /** The end of a length-delimited field that starts here (its bytes are [pos, returned end)). */
  lengthEnd(): number {
    const n = this.varint();
    const end = this.pos + n;
    return end > this.end ? this.fail() : end;
  }

  string(): string {
    const end = this.lengthEnd();
    if (this.bad) return '';
    const s = utf8At(this.b, this.pos, end);
    if (s === null) {
      this.fail();
      return '';
    }
    this.pos = end;
    return s;
  }

  bytes(): Uint8Array {
    const end = this.lengthEnd();
    if (this.bad) return EMPTY;
    const out = this.b.subarray(this.pos, end);
    this.pos = end;
    return out;
  }

  fail(): 0 {
    this.bad = true;
    this.pos = this.end;
    return 0;
  }
}

/** The text of [from, to) (null: invalid UTF-8). */
function utf8At(b: Uint8Array, from: number, to: number): string | null {
  try {
    return strictUtf8.decode(b.subarray(from, to));
  } catch (e) {
    // Invalid UTF-8, the one error a fatal decoder throws: the generic decoder rejects the message with its own words.
    if (e instanceof TypeError) return null;
    throw e;
  }
}

/** A google.protobuf.Timestamp in milliseconds, for non-negative seconds and nanos; null when not that plain. */
function timestampMsAt(c: Cursor, end: number): number | null {
  const t = new Cursor(c.b, c.pos, end);
  let seconds = 0;
  let nanos = 0;
  while (t.pos < end && !t.bad) {
    const tag = t.varint();
    if (tag === ((1 << 3) | VARINT)) seconds = t.varint();
    else if (tag === ((2 << 3) | VARINT)) nanos = t.varint();
    else return null;
  }
  if (t.bad || nanos > 0x7fffffff) return null;
  c.pos = end;
  return seconds * 1000 + Math.round(nanos / 1000000);
}

/** The fields of a KubeEvent, or null: decode it with the generic decoder (see the file's comment). */
// eslint-disable-next-line max-lines-per-function -- one switch over the message's twelve fields
export function readKubeEvent(data: Uint8Array): KubeEventFields | null {
  const f: KubeEventFields = {
    cluster: '',
    kind: 0,
    namespace: '',
    name: '',
    uid: '',
    resourceVersion: '',
    type: 0,
    object: EMPTY,
    listGeneration: 0,
    observedAtMs: 0,
    omittedReason: '',
    noticedByRelist: false,
  };
  // A plain view: the archive's payloads are Buffers, whose subarray builds a Buffer through its species (~1 µs each).
  const c = new Cursor(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), 0, data.length);
  let sawTime = false;
  while (c.pos < c.end) {
    const tag = c.varint();
    const field = Math.floor(tag / 8);
    if (c.bad || field >= FIELD_WIRE.length || FIELD_WIRE[field] !== tag % 8) return null;
    switch (field) {
      case 1:
        f.cluster = c.string();
        break;
      case 2:
        f.kind = c.varint();
        break;
      case 3:
        f.namespace = c.string();
        break;
      case 4:
        f.name = c.string();
        break;
      case 5:
        f.uid = c.string();
        break;
      case 6:
        f.resourceVersion = c.string();
        break;
      case 7:
        f.type = c.varint();
        break;
      case 8:
        f.object = c.bytes();
        break;
      case 9:
        f.listGeneration = c.varint();
        break;
      case 10: {
        const end = c.lengthEnd();
        const ms = sawTime || c.bad ? null : timestampMsAt(c, end);
        if (ms === null) return null;
        f.observedAtMs = ms;
        sawTime = true;
        break;
      }
      case 11:
        f.omittedReason = c.string();
        break;
      case 12: {
        const v = c.varint();
        if (v > 1) return null;
        f.noticedByRelist = v === 1;
        break;
      }
      default:
        return null;
    }
    if (c.bad) return null;
  }
  // Enums are int32: a value the generic decoder would read as negative is left to it.
  return f.kind > 0x7fffffff || f.type > 0x7fffffff ? null : f;
}
