import type { Pool } from '@portolan/desired-state';
import { canonicalJson } from '@portolan/desired-state';
import type { PieceSink } from './piece.ts';

/** What one commit produced: the root piece id (the snapshot's content hash) and the pieces new since the last commit. */
export interface EncodedSnapshot {
  readonly root: string;
  /** New pieces as canonical JSON text, by id (decoded from `bytes` on first use). */
  readonly pieces: ReadonlyMap<string, string>;
  /** The same pieces as UTF-8 bytes (what the store writes), by id. */
  readonly bytes: ReadonlyMap<string, Uint8Array>;
}

export type PoolHeader = Omit<Pool, 'members'>;

/** What a commit returns: its root and its sink's pieces (texts decoded only when read). */
export class Committed implements EncodedSnapshot {
  readonly root: string;
  readonly changed: boolean;
  private readonly sink: PieceSink;

  constructor(root: string, sink: PieceSink, changed: boolean) {
    this.root = root;
    this.sink = sink;
    this.changed = changed;
  }

  get pieces(): ReadonlyMap<string, string> {
    return this.sink.texts;
  }

  get bytes(): ReadonlyMap<string, Uint8Array> {
    return this.sink.bytes;
  }
}

export const MARK = '\u0000members\u0000';

const utf8 = new TextEncoder();

/** Splits a canonical encoding at the (unique) marker placed where the members id goes; each side as UTF-8 bytes. */
export function splitAround(text: string): { before: Uint8Array; after: Uint8Array } {
  const quoted = JSON.stringify(MARK);
  const at = text.indexOf(quoted);
  return { before: utf8.encode(text.slice(0, at)), after: utf8.encode(text.slice(at + quoted.length)) };
}

/** Whether two pool headers encode the same (cheap: settings come from shared spec objects). */
export function samePoolHeader(a: PoolHeader, b: PoolHeader): boolean {
  if (a === b) return true;
  if (a.name !== b.name || a.tlsToBackend !== b.tlsToBackend || a.services.length !== b.services.length) return false;
  const sameSettings =
    (a.monitor === b.monitor && a.persistence === b.persistence && a.customization === b.customization) ||
    canonicalJson([a.monitor, a.persistence, a.customization]) ===
      canonicalJson([b.monitor, b.persistence, b.customization]);
  if (!sameSettings) return false;
  return a.services.every((r, i) => {
    const o = b.services[i]!;
    return r.cluster === o.cluster && r.kind === o.kind && r.namespace === o.namespace && r.name === o.name;
  });
}
