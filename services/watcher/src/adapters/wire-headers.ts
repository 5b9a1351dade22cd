import type { MsgHdrs } from '@nats-io/nats-core';

/** A header name or value NATS cannot carry (CR or LF inside, or a name with a colon or space). */
export class HeaderValueError extends Error {
  readonly code = 'NATS_HEADER_INVALID';
}

const utf8 = new TextEncoder();

/**
 * NATS message headers for publishing, written once as their wire block (`NATS/1.0\r\nk: v\r\n...\r\n\r\n`).
 * The client's own header object canonicalises, searches and validates on every `set` and builds its block again
 * when encoding: about 2 KB of garbage per message at the watcher's rate. This one keeps the pairs in order with
 * exact-case names (as `Match.Exact` does) and implements the client's `MsgHdrs` interface, plus the `encode()`
 * the client calls when it writes a publish (nats-core 3.x: `protocol.publish` → `headers.encode()`).
 */
export class WireHeaders implements MsgHdrs {
  private readonly pairs: [string, string][];

  constructor(pairs: readonly (readonly [string, string])[] = []) {
    this.pairs = [];
    for (const [k, v] of pairs) this.append(k, v);
  }

  get hasError(): boolean {
    return false;
  }

  get status(): string {
    return '';
  }

  get code(): number {
    return 0;
  }

  get description(): string {
    return '';
  }

  get(k: string): string {
    return this.pairs.find((p) => p[0] === k)?.[1] ?? '';
  }

  set(k: string, v: string): void {
    this.delete(k);
    this.append(k, v);
  }

  append(k: string, v: string): void {
    if (k === '' || /[\r\n: ]/.test(k)) throw new HeaderValueError(`invalid header name ${JSON.stringify(k)}`);
    if (/[\r\n]/.test(v)) throw new HeaderValueError(`invalid value for header ${k}: it contains CR or LF`);
    this.pairs.push([k, v]);
  }

  has(k: string): boolean {
    return this.pairs.some((p) => p[0] === k);
  }

  keys(): string[] {
    return [...new Set(this.pairs.map((p) => p[0]))];
  }

  values(k: string): string[] {
    return this.pairs.filter((p) => p[0] === k).map((p) => p[1]);
  }

  delete(k: string): void {
    for (let i = this.pairs.length - 1; i >= 0; i--) if (this.pairs[i]![0] === k) this.pairs.splice(i, 1);
  }

  last(k: string): string {
    return this.values(k).at(-1) ?? '';
  }

  *[Symbol.iterator](): Iterator<[string, string[]]> {
    for (const k of this.keys()) yield [k, this.values(k)];
  }

  /** The wire block the client sends before the payload. */
  encode(): Uint8Array {
    let s = 'NATS/1.0';
    for (const [k, v] of this.pairs) s += `\r\n${k}: ${v}`;
    return utf8.encode(`${s}\r\n\r\n`);
  }
}
