import { fromBinary, toBinary, KubeEventSchema, KubeListMarkerSchema } from '@portolan/proto';
import { trace, type Span, type Tracer } from '@portolan/telemetry';
import { backoffDelayMs, encodeKubeEvent, type OutboundMessage } from '../core/index.ts';

/** The part of NatsEventBus the publisher needs (an interface so the bus can be swapped in benchmarks). */
export interface PublishTarget {
  publish(
    subject: string,
    data: Uint8Array,
    options: { msgId: string; headers?: Readonly<Record<string, string>>; timeoutMs?: number },
  ): Promise<{ duplicate: boolean }>;
  /** Recreates the stream after the broker lost it (fresh store directory). */
  provision(): Promise<void>;
}

/** Limits and hooks of the publisher. */
export interface BusPublisherOptions {
  readonly target: PublishTarget;
  /** Upper bound of messages held (queued + awaiting ack): beyond it `enqueue` waits (backpressure on the watch). */
  readonly maxPendingMessages: number;
  readonly maxPendingBytes: number;
  /** Publishes awaiting their ack at once (pipelining); never two of the same object. */
  readonly maxInFlight: number;
  readonly publishTimeoutMs: number;
  readonly tracer: Tracer;
  readonly random: () => number;
  /** False while the NATS connection is down: retries wait instead of piling up in the client's buffer. */
  readonly connected: () => boolean;
  readonly onPublished?: (m: MessageHead, latencySeconds: number, duplicate: boolean) => void;
  readonly onRetry?: (m: MessageHead, error: unknown, attempt: number) => void;
  /** A message the broker refuses for its size: returns the replacement to publish instead (an omitted stub). */
  readonly onTooLarge: (m: OutboundMessage) => OutboundMessage;
}

/** What the publisher keeps of a message besides its encoded bytes (the decoded message is not held). */
export type MessageHead = Pick<OutboundMessage, 'type' | 'subject' | 'msgId' | 'orderKey'>;

/** Where a message in flight is: sending and awaiting its ack, re-declaring the stream, or waiting to retry. */
export type FlightStage = 'publishing' | 'reprovisioning' | 'backoff' | 'disconnected';

interface Pending {
  message: MessageHead;
  data: Uint8Array;
  readonly enqueuedAt: number;
  attempt: number;
  stage: FlightStage;
}

/** A message in flight for longer than expected, as `stuck` reports it. */
export interface StuckMessage {
  readonly msgId: string;
  readonly orderKey: string;
  readonly attempt: number;
  readonly stage: FlightStage;
  readonly seconds: number;
}

const RETRY = { baseMs: 100, capMs: 2_000 };
/**
 * No responders: the stream is missing (re-declared before the retry) or has no leader while its Raft group elects
 * one (2 to 5 s on nats-server 2.9). Retried at a short, steady pace so the first publish after the election is
 * not a whole backoff step late.
 */
const RETRY_NO_LEADER = { baseMs: 100, capMs: 300 };

/**
 * Publishes in order and waits for every ack; nothing observed is dropped. Messages wait in bounded memory while
 * NATS is down and are retried with the same message id (the broker deduplicates a retry whose first ack was lost).
 * Ordering rules: two messages of one object are never in flight together (per-object order survives retries),
 * and a list marker is a barrier — everything before it is acked before it goes, nothing after it goes before its
 * ack — so the planner never applies a marker out of place.
 */
export class BusPublisher {
  private readonly options: BusPublisherOptions;
  private readonly queue: Pending[] = [];
  private queueHead = 0;
  private readonly inFlightKeys = new Set<string>();
  /** The messages in flight (sent, retrying or waiting to retry), for `stuck`. */
  private readonly flying = new Set<Pending>();
  private inFlight = 0;
  private markersInFlight = 0;
  private pendingBytes = 0;
  private readonly roomWaiters: (() => void)[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private closed = false;
  private provisioning: Promise<void> | null = null;

  constructor(options: BusPublisherOptions) {
    this.options = options;
  }

  /** Messages held: queued plus awaiting ack. */
  get pending(): number {
    return this.queue.length - this.queueHead + this.inFlight;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.pendingBytes;
  }

  /** Queues a message; resolves once it is held (not yet acked). Waits while the buffer is full. */
  async enqueue(message: OutboundMessage): Promise<void> {
    while (!this.closed && !this.hasRoom()) await new Promise<void>((r) => this.roomWaiters.push(r));
    const data = encode(message);
    this.queue.push({ message: head(message), data, enqueuedAt: performance.now(), attempt: 0, stage: 'publishing' });
    this.pendingBytes += data.length;
    this.pump();
  }

  /** True when `enqueue` would not wait. */
  hasRoom(): boolean {
    return this.pending < this.options.maxPendingMessages && this.pendingBytes < this.options.maxPendingBytes;
  }

  /** Resolves when everything enqueued so far has been acked. */
  async flushed(): Promise<void> {
    while (this.pending > 0 && !this.closed) await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  /** Stops sending; held messages are abandoned (the next start relists and republishes them). */
  close(): void {
    this.closed = true;
    for (const w of this.roomWaiters.splice(0)) w();
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private pump(): void {
    while (!this.closed && this.queueHead < this.queue.length && this.inFlight < this.options.maxInFlight) {
      const item = this.queue[this.queueHead]!;
      const isMarker = item.message.type === 'marker';
      if (
        isMarker
          ? this.inFlight > this.markersInFlight
          : this.markersInFlight > 0 || this.inFlightKeys.has(item.message.orderKey)
      )
        return;
      this.queueHead++;
      if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
        this.queue.splice(0, this.queueHead);
        this.queueHead = 0;
      }
      this.inFlight++;
      this.flying.add(item);
      if (isMarker) this.markersInFlight++;
      else this.inFlightKeys.add(item.message.orderKey);
      void this.send(item);
    }
  }

  /**
   * Messages in flight for more than `seconds` since they were queued, with where each is: a message that never
   * settles holds back every later change of its object, so the watcher reports these rather than stall silently.
   */
  stuck(seconds: number): StuckMessage[] {
    const now = performance.now();
    const out: StuckMessage[] = [];
    for (const p of this.flying) {
      const age = (now - p.enqueuedAt) / 1000;
      if (age > seconds)
        out.push({
          msgId: p.message.msgId,
          orderKey: p.message.orderKey,
          attempt: p.attempt,
          stage: p.stage,
          seconds: age,
        });
    }
    return out;
  }

  private async send(item: Pending): Promise<void> {
    for (;;) {
      if (this.closed) return;
      try {
        item.stage = 'publishing';
        const duplicate = await this.publishTraced(item);
        this.options.onPublished?.(item.message, (performance.now() - item.enqueuedAt) / 1000, duplicate);
        break;
      } catch (e) {
        item.attempt++;
        this.options.onRetry?.(item.message, e, item.attempt);
        const event =
          item.message.type === 'event' && isTooLarge(e) ? fromBinary(KubeEventSchema, item.data) : undefined;
        if (event !== undefined && event.omittedReason === '') {
          this.replace(item, this.options.onTooLarge({ ...item.message, type: 'event', message: event }));
          continue;
        }
        const missing = isStreamMissing(e);
        item.stage = 'reprovisioning';
        if (missing) await this.reprovision();
        item.stage = 'backoff';
        await sleep(backoffDelayMs(item.attempt, this.options.random(), missing ? RETRY_NO_LEADER : RETRY));
        item.stage = 'disconnected';
        while (!this.closed && !this.options.connected()) await sleep(100);
      }
    }
    this.settle(item);
  }

  private async publishTraced(item: Pending): Promise<boolean> {
    const m = item.message;
    const span = this.options.tracer.startSpan('watcher.publish', {
      attributes: {
        'messaging.destination': m.subject,
        'messaging.message.id': m.msgId,
        'portolan.object': m.orderKey,
      },
    });
    try {
      const headers = traceHeaders(span);
      const ack = await this.options.target.publish(m.subject, item.data, {
        msgId: m.msgId,
        headers,
        timeoutMs: this.options.publishTimeoutMs,
      });
      span.setAttribute('messaging.duplicate', ack.duplicate);
      return ack.duplicate;
    } catch (e) {
      span.recordException(e as Error);
      throw e;
    } finally {
      span.end();
    }
  }

  private replace(item: Pending, message: OutboundMessage): void {
    const data = encode(message);
    this.pendingBytes += data.length - item.data.length;
    item.message = head(message);
    item.data = data;
  }

  private settle(item: Pending): void {
    this.inFlight--;
    this.flying.delete(item);
    this.pendingBytes -= item.data.length;
    if (item.message.type === 'marker') this.markersInFlight--;
    else this.inFlightKeys.delete(item.message.orderKey);
    while (this.roomWaiters.length > 0 && this.hasRoom()) this.roomWaiters.shift()!();
    if (this.pending === 0) for (const w of this.idleWaiters.splice(0)) w();
    this.pump();
  }

  private async reprovision(): Promise<void> {
    this.provisioning ??= this.options.target
      .provision()
      // A failed re-declare is not lost: the retried publish fails again on the missing stream, which onRetry
      // counts and logs, and the next attempt provisions again.
      .catch(() => undefined)
      .finally(() => {
        this.provisioning = null;
      });
    await this.provisioning;
  }
}

function encode(m: OutboundMessage): Uint8Array {
  return m.type === 'event' ? encodeKubeEvent(m.message) : toBinary(KubeListMarkerSchema, m.message);
}

function head(m: OutboundMessage): MessageHead {
  return { type: m.type, subject: m.subject, msgId: m.msgId, orderKey: m.orderKey };
}

/**
 * The W3C trace context of `span` as message headers: what the global propagator writes for it, without making a
 * context for the span first (a copied context map per message).
 */
function traceHeaders(span: Span): Record<string, string> {
  const sc = span.spanContext();
  if (!trace.isSpanContextValid(sc)) return {};
  const traceparent = `00-${sc.traceId}-${sc.spanId}-0${Number(sc.traceFlags || 0).toString(16)}`;
  const state = sc.traceState?.serialize() ?? '';
  return state === '' ? { traceparent } : { traceparent, tracestate: state };
}

function chain(e: unknown): string {
  const parts: string[] = [];
  for (
    let cur: unknown = e, depth = 0;
    cur !== undefined && cur !== null && depth < 5;
    cur = (cur as { cause?: unknown }).cause, depth++
  ) {
    parts.push(String((cur as Error).message ?? cur), String((cur as { code?: unknown }).code ?? ''));
  }
  return parts.join(' ');
}

function isTooLarge(e: unknown): boolean {
  return /max(imum)?[ _]?payload|MAX_PAYLOAD|message size exceeds/i.test(chain(e));
}

function isStreamMissing(e: unknown): boolean {
  return /no responders|stream not found|503/i.test(chain(e));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
