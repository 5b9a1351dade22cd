import type { BusMessage } from '@portolan/bus';
import {
  ROOT_CONTEXT,
  extractTraceContext,
  recordSpanError,
  trace,
  traceHeadersOf,
  type Context,
  type Link,
  type Tracer,
} from '@portolan/telemetry';

/** Span attribute keys of the planner's spans. */
export const plannerSpanAttributes = {
  subject: 'messaging.destination',
  streamSeq: 'portolan.stream.seq',
  messages: 'portolan.batch.messages',
  snapshots: 'portolan.snapshots',
  position: 'portolan.position',
} as const;

/** Links a commit span keeps to the other changes of its batch (an initial list folds thousands at once). */
const MAX_LINKS = 32;

/**
 * The spans of one folded batch, by this rule: every message that carries a trace context (`traceparent`) is folded
 * in a `planner.fold` span, a child of the watcher's `watcher.publish` span of that message, so each Kubernetes
 * change's own trace shows its planning. Planning, committing and announcing the batch is one `planner.commit` span,
 * a child of the fold span of the batch's LAST traced message (the newest change, whose trace id the snapshots
 * record) with links to the fold spans of the others; its context rides on every announcement, so the applier
 * continues that trace. A change folded together with a newer one ends its trace at its fold span, and the commit
 * span's link leads from the newer trace back to it: one change never starts a second trace.
 */
export class BatchTrace {
  /** Null when spans leave nowhere: the fold then makes none (it runs per message, in the hottest loop). */
  private readonly tracer: Tracer | null;
  private readonly links: Link[] = [];
  /** The `traceparent` of the batch's last traced message, and the context of its fold span (when one was made). */
  private lastTraceparent: string | null = null;
  private lastFold: Context | null = null;

  constructor(tracer: Tracer | null) {
    this.tracer = tracer;
  }

  /** The trace id of the batch's last traced message: the trace its snapshots continue (null: none traced). */
  get traceId(): string | null {
    return this.lastTraceparent?.split('-')[1] ?? null;
  }

  /** Runs the fold of one message, inside its span when the message carries a trace context. */
  fold<T>(m: BusMessage, fn: () => T): T {
    const traceparent = m.headers.traceparent;
    if (traceparent === undefined) return fn();
    this.lastTraceparent = traceparent;
    if (this.tracer === null) return fn();
    const span = this.tracer.startSpan(
      'planner.fold',
      { attributes: { [plannerSpanAttributes.subject]: m.subject, [plannerSpanAttributes.streamSeq]: m.streamSeq } },
      extractTraceContext(m.headers),
    );
    try {
      return fn();
    } catch (e) {
      recordSpanError(span, e);
      throw e;
    } finally {
      span.end();
      const previous = this.lastFold === null ? undefined : trace.getSpanContext(this.lastFold);
      if (previous !== undefined && this.links.length < MAX_LINKS) this.links.push({ context: previous });
      this.lastFold = trace.setSpan(ROOT_CONTEXT, span);
    }
  }

  /**
   * Runs the batch's planning and commit in the `planner.commit` span; `fn` gets the headers its announcements carry
   * and returns the number of snapshots written.
   */
  async commit(
    messages: number,
    position: number,
    fn: (announce: Readonly<Record<string, string>>) => Promise<number>,
  ): Promise<number> {
    if (this.tracer === null) return fn({});
    const span = this.tracer.startSpan(
      'planner.commit',
      {
        attributes: { [plannerSpanAttributes.messages]: messages, [plannerSpanAttributes.position]: position },
        links: this.links,
      },
      this.lastFold ?? ROOT_CONTEXT,
    );
    try {
      const snapshots = await fn(traceHeadersOf(span));
      span.setAttribute(plannerSpanAttributes.snapshots, snapshots);
      return snapshots;
    } catch (e) {
      recordSpanError(span, e);
      throw e;
    } finally {
      span.end();
    }
  }
}
