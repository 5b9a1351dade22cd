import {
  ROOT_CONTEXT,
  extractTraceContext,
  recordSpanError,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@portolan/telemetry';

/** Span attribute keys of the applier's spans. They name the appliance and the work, never credentials or keys. */
export const applierSpanAttributes = {
  appliance: 'portolan.appliance',
  snapshot: 'portolan.snapshot.id',
  epoch: 'portolan.epoch',
  trigger: 'portolan.trigger',
  operations: 'portolan.operations',
  /** `<action> <objectType>/<objectName>` of one operation (no payload). */
  operation: 'portolan.operation',
  result: 'portolan.result',
} as const;

/** The appliance calls traced as children of a cycle span. */
export type ApplianceCall = 'applier.read-back' | 'applier.execute' | 'applier.execute-all';

/** What a cycle span is started with. */
export interface CycleTraceStart {
  readonly appliance: string;
  readonly snapshotId: string | null;
  readonly trigger: string;
  /** The leader's epoch; null for a follower's cycle. */
  readonly epoch: number | null;
  /** The trace headers the snapshot was announced with (the planner's commit span); none → a trace of its own. */
  readonly parent?: Readonly<Record<string, string>> | null;
}

/**
 * The spans of one apply cycle (or drift check): a cycle span that continues the trace of the snapshot it converges
 * to, and one child span around each call to the appliance, so one Kubernetes change reads as one trace from the
 * watcher's publish to the appliance's answer.
 */
export class CycleTrace {
  private readonly tracer: Tracer;
  private readonly span: Span;
  private readonly context: Context;
  private readonly attributes: Attributes;

  private constructor(tracer: Tracer, name: string, attributes: Attributes, parent: Context) {
    this.tracer = tracer;
    this.attributes = attributes;
    this.span = tracer.startSpan(name, { attributes }, parent);
    this.context = trace.setSpan(ROOT_CONTEXT, this.span);
  }

  /** Starts the span `name` (`applier.cycle`, `applier.drift-check`) for the appliance and snapshot of `s`. */
  static start(tracer: Tracer, name: string, s: CycleTraceStart): CycleTrace {
    const attributes: Attributes = {
      [applierSpanAttributes.appliance]: s.appliance,
      [applierSpanAttributes.trigger]: s.trigger,
      ...(s.snapshotId === null ? {} : { [applierSpanAttributes.snapshot]: s.snapshotId }),
      ...(s.epoch === null ? {} : { [applierSpanAttributes.epoch]: s.epoch }),
    };
    const parent = s.parent === undefined || s.parent === null ? ROOT_CONTEXT : extractTraceContext(s.parent);
    return new CycleTrace(tracer, name, attributes, parent);
  }

  /** The trace id, for the apply record (null when spans are not recorded). */
  get traceId(): string | null {
    const sc = this.span.spanContext();
    return trace.isSpanContextValid(sc) ? sc.traceId : null;
  }

  /**
   * Runs one appliance call in a child span carrying the cycle's attributes and `extra`; `failure` names a refusal the
   * call returned instead of throwing (the span's status says it failed).
   */
  async call<T>(
    name: ApplianceCall,
    fn: () => Promise<T>,
    extra: Attributes = {},
    failure?: (result: T) => string | null,
  ): Promise<T> {
    const span = this.tracer.startSpan(name, { attributes: { ...this.attributes, ...extra } }, this.context);
    try {
      const result = await fn();
      const refused = failure?.(result) ?? null;
      if (refused !== null) recordSpanError(span, refused);
      return result;
    } catch (e) {
      recordSpanError(span, e);
      throw e;
    } finally {
      span.end();
    }
  }

  /** Runs a read-back of the appliance in a child span. */
  readBack<T>(read: () => Promise<T>): Promise<T> {
    return this.call('applier.read-back', read);
  }

  /** Ends the cycle span with what the cycle came to. */
  end(result: string, attributes: Attributes = {}): void {
    this.span.setAttributes({ ...attributes, [applierSpanAttributes.result]: result });
    this.span.end();
  }

  /** Ends the cycle span as failed. */
  fail(error: unknown): void {
    recordSpanError(this.span, error);
    this.span.end();
  }
}

/** Runs `fn` in a cycle span started by `start`; the span ends with `outcome` of the result, or as failed. */
export async function traceCycle<T>(
  tracer: Tracer,
  name: string,
  start: CycleTraceStart,
  fn: (trace: CycleTrace) => Promise<T>,
  outcome: (result: T) => string,
): Promise<T> {
  const spans = CycleTrace.start(tracer, name, start);
  try {
    const result = await fn(spans);
    spans.end(outcome(result));
    return result;
  } catch (e) {
    spans.fail(e);
    throw e;
  }
}

/** Runs a drift check's read-back in an `applier.drift-check` span (a trace of its own: no change asked for it). */
export function traceDriftRead<T>(
  tracer: Tracer,
  start: Omit<CycleTraceStart, 'trigger' | 'parent'>,
  read: () => Promise<T>,
): Promise<T> {
  const check = { ...start, trigger: 'drift' };
  return traceCycle(
    tracer,
    'applier.drift-check',
    check,
    (spans) => spans.readBack(read),
    () => 'read',
  );
}
