/** One decoded line of a watch stream. */
export type WatchLine =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: unknown; readonly resourceVersion: string }
  | { readonly type: 'BOOKMARK'; readonly resourceVersion: string }
  /** An in-stream Status, e.g. code 410 when the requested resourceVersion is too old. */
  | { readonly type: 'ERROR'; readonly code: number; readonly reason: string; readonly message: string }
  /** Not a watch event at all: counted, and repaired by a relist. Never silently dropped. */
  | { readonly type: 'garbled'; readonly detail: string };

/** Decodes one newline-delimited watch event. Total: never throws. */
export function decodeWatchLine(line: string): WatchLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (e) {
    return { type: 'garbled', detail: `not JSON (${line.length} chars): ${(e as Error).message}` };
  }
  if (typeof parsed !== 'object' || parsed === null) return { type: 'garbled', detail: 'not an object' };
  const { type, object } = parsed as { type?: unknown; object?: unknown };
  const obj = typeof object === 'object' && object !== null ? (object as Record<string, unknown>) : undefined;
  if (obj === undefined) return { type: 'garbled', detail: `event ${String(type)} without an object` };
  if (type === 'ERROR') {
    const code = typeof obj['code'] === 'number' ? obj['code'] : 0;
    return { type: 'ERROR', code, reason: String(obj['reason'] ?? ''), message: String(obj['message'] ?? '') };
  }
  const meta = obj['metadata'];
  const rv =
    typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)['resourceVersion'] : undefined;
  if (typeof rv !== 'string' || rv === '')
    return { type: 'garbled', detail: `event ${String(type)} without metadata.resourceVersion` };
  if (type === 'BOOKMARK') return { type: 'BOOKMARK', resourceVersion: rv };
  if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') return { type, object: obj, resourceVersion: rv };
  return { type: 'garbled', detail: `unknown event type ${JSON.stringify(type)}` };
}

/** Splits streamed text into complete lines; a partial last line waits for the next chunk (its one mutable field). */
export class LineSplitter {
  private pending = '';

  /** Adds a chunk and returns the lines it completed (empty lines dropped). */
  push(chunk: string): string[] {
    const text = this.pending + chunk;
    const parts = text.split('\n');
    this.pending = parts.pop() ?? '';
    return parts.filter((l) => l.trim() !== '');
  }

  /** The unterminated remainder at end of stream: a truncated event if not empty. */
  rest(): string {
    const r = this.pending;
    this.pending = '';
    return r;
  }
}

/** One page of a list answer. */
export type ListPage =
  | {
      readonly ok: true;
      readonly items: readonly unknown[];
      readonly resourceVersion: string;
      readonly continueToken: string | undefined;
    }
  | { readonly ok: false; readonly detail: string };

/** Decodes a list answer (`items`, `metadata.resourceVersion`, `metadata.continue`). */
export function decodeListPage(body: unknown): ListPage {
  if (typeof body !== 'object' || body === null) return { ok: false, detail: 'list answer is not an object' };
  const { items, metadata } = body as { items?: unknown; metadata?: { resourceVersion?: unknown; continue?: unknown } };
  const rv = metadata?.resourceVersion;
  if (!Array.isArray(items) && items !== null && items !== undefined)
    return { ok: false, detail: 'list answer has no items array' };
  if (typeof rv !== 'string' || rv === '') return { ok: false, detail: 'list answer has no metadata.resourceVersion' };
  const cont = metadata?.continue;
  return {
    ok: true,
    items: Array.isArray(items) ? items : [],
    resourceVersion: rv,
    continueToken: typeof cont === 'string' && cont !== '' ? cont : undefined,
  };
}
