import type { ServerResponse } from 'node:http';
import { toStatus, type ApiError } from '../core/api-error.ts';
import type { FieldSelector } from '../core/field-selector.ts';
import type { LabelSelector } from '../core/label-selector.ts';
import { apiVersionOf, servedAs, type ResourceType } from '../core/resource-types.ts';
import { toTable, type IncludeObject } from '../core/table.ts';
import type { ChangeEvent, WatchEventType, WatchSubscriber } from '../store/collection.ts';

/** How a watch stream is configured from its request. */
export interface WatchStreamOptions {
  readonly type: ResourceType;
  readonly namespace: string;
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
  readonly format: 'json' | 'table';
  readonly includeObject: IncludeObject;
  readonly allowBookmarks: boolean;
  readonly bookmarkIntervalMs: number;
  readonly timeoutMs: number;
  readonly nowMs: () => number;
  readonly currentRv: () => number;
  readonly onClose: (stream: WatchStream) => void;
}

/**
 * One open watch response: a stream of JSON lines, one event each. Supports the fault modes tests need:
 * stall (nothing written, not even headers or bookmarks), garbled lines, in-stream errors and forced ends.
 */
export class WatchStream implements WatchSubscriber {
  readonly namespace: string;
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
  readonly type: ResourceType;
  private readonly res: ServerResponse;
  private readonly options: WatchStreamOptions;
  private readonly pending: string[] = [];
  private headersSent = false;
  /** True until started, and while a stall fault holds the stream. */
  private stalled = true;
  private closed = false;
  private timedOut = false;
  private garbleNext = 0;
  private tableHeadersSent = false;
  private unsubscribe: (() => void) | null = null;
  private bookmarkTimer: ReturnType<typeof setInterval> | null = null;
  private timeoutTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(res: ServerResponse, options: WatchStreamOptions) {
    this.res = res;
    this.options = options;
    this.type = options.type;
    this.namespace = options.namespace;
    this.labels = options.labels;
    this.fields = options.fields;
    res.on('close', () => this.cleanup());
  }

  /** Sets the store unsubscribe hook once the store accepted the watch. */
  attach(unsubscribe: () => void): void {
    this.unsubscribe = unsubscribe;
  }

  /** Sends headers and buffered events and arms the bookmark and timeout timers (unless stalled). */
  start(stalled: boolean): void {
    this.stalled = stalled;
    this.timeoutTimer = setTimeout(() => this.onTimeout(), this.options.timeoutMs);
    if (this.options.allowBookmarks)
      this.bookmarkTimer = setInterval(() => this.sendBookmark(), this.options.bookmarkIntervalMs);
    this.flush();
  }

  deliver(type: WatchEventType, event: ChangeEvent): void {
    this.write(this.encode(type, event));
  }

  private encode(type: WatchEventType, event: ChangeEvent): string {
    if (this.options.format === 'table') {
      const table = toTable(this.type, [event.object], {
        nowMs: this.options.nowMs(),
        includeObject: this.options.includeObject,
        listMeta: { resourceVersion: event.object.metadata?.resourceVersion ?? '' },
        noHeaders: this.tableHeadersSent,
      });
      this.tableHeadersSent = true;
      return `${JSON.stringify({ type, object: table })}\n`;
    }
    // The cached encoding is the storage version's; a watch on another version encodes its own.
    const object = servedAs(this.type, event.object);
    if (object !== event.object) return `${JSON.stringify({ type, object })}\n`;
    const cache = (event.encoded ??= {});
    return (cache[type] ??= `${JSON.stringify({ type, object: event.object })}\n`);
  }

  private write(line: string): void {
    if (this.closed) return;
    let out = line;
    if (this.garbleNext > 0) {
      this.garbleNext--;
      out = `${line.slice(0, Math.max(1, Math.floor(line.length / 2)))}\n`;
    }
    this.pending.push(out);
    this.flush();
  }

  private flush(): void {
    if (this.stalled || this.closed) return;
    this.writeHeaders();
    if (this.pending.length > 0) this.res.write(this.pending.splice(0).join(''));
  }

  private writeHeaders(): void {
    if (this.headersSent) return;
    this.res.writeHead(200, {
      'Content-Type':
        this.options.format === 'table' ? 'application/json;as=Table;v=v1;g=meta.k8s.io' : 'application/json',
      'Cache-Control': 'no-cache, private',
    });
    this.res.flushHeaders();
    this.headersSent = true;
  }

  /** Sends a BOOKMARK carrying the current resourceVersion (optionally with annotations, e.g. initial-events-end). */
  sendBookmark(annotations?: Record<string, string>): void {
    if (this.stalled || this.closed) return;
    const metadata = {
      resourceVersion: String(this.options.currentRv()),
      creationTimestamp: null,
      ...(annotations === undefined ? {} : { annotations }),
    };
    this.write(
      `${JSON.stringify({ type: 'BOOKMARK', object: { kind: this.type.kind, apiVersion: apiVersionOf(this.type), metadata } })}\n`,
    );
  }

  /** Sends an in-stream ERROR event with a Status (and ends the stream when close is true, as the API server does). */
  sendError(error: ApiError, close: boolean): void {
    this.write(`${JSON.stringify({ type: 'ERROR', object: toStatus(error) })}\n`);
    if (close) this.end();
  }

  /** Writes a raw line that is not valid JSON (a corrupted or truncated event). */
  sendRawLine(text: string): void {
    this.write(`${text}\n`);
  }

  /** Truncates the next n events so clients cannot parse them (the events are lost to them). */
  garbleNextEvents(n: number): void {
    this.garbleNext += n;
  }

  /** Stops writing anything (events queue up) until resumed: the connection stays open. */
  stall(): void {
    this.stalled = true;
  }

  /** Resumes a stalled stream, delivering what queued up. */
  resume(): void {
    this.stalled = false;
    this.flush();
    if (this.timedOut) this.end();
  }

  private onTimeout(): void {
    this.timedOut = true;
    if (!this.stalled) this.end();
  }

  /** Ends the response cleanly (what a server-side watch timeout looks like). */
  end(): void {
    if (this.closed) return;
    this.writeHeaders();
    this.cleanup();
    this.res.end();
  }

  /** Detaches from the store without writing (the request is answered some other way). */
  abandon(): void {
    this.cleanup();
  }

  /** Destroys the connection without a clean end (a reset). */
  destroy(): void {
    this.cleanup();
    this.res.destroy();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe?.();
    if (this.bookmarkTimer !== null) clearInterval(this.bookmarkTimer);
    if (this.timeoutTimer !== null) clearTimeout(this.timeoutTimer);
    this.options.onClose(this);
  }
}
