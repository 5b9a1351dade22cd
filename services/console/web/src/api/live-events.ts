// The console's Server-Sent Events over fetch (EventSource cannot send the bearer header), reconnecting with backoff.
import { createParser } from 'eventsource-parser';

/** One event of /api/v1/events. */
export type LiveEvent =
  | { readonly type: 'snapshot'; readonly data: { appliance: string; id: string; at: string; origin: string } }
  | { readonly type: 'apply'; readonly data: { appliance: string; id: string; snapshotId: string; status: string } }
  | { readonly type: 'drift'; readonly data: { appliance: string; id: string; at: string } }
  | { readonly type: 'hold'; readonly data: { cluster: string; id: string; at: string } }
  | { readonly type: 'action'; readonly data: { appliance: string; id: string; action: string; actor: string } };

/** Where the stream stands: `live` once the server said `ready`, `retrying` while waiting to reconnect. */
export type LiveState = 'connecting' | 'live' | 'retrying' | 'closed';

/** What the stream reports to. */
export interface LiveHandlers {
  readonly onEvent: (e: LiveEvent) => void;
  readonly onState: (s: LiveState) => void;
  /** The token was refused: the stream stops for good. */
  readonly onUnauthorized: () => void;
}

const eventTypes = new Set(['snapshot', 'apply', 'drift', 'hold', 'action']);

/** Backoff before reconnect attempt `n` (0-based): 1 s doubling to 30 s, with jitter so replicas' clients spread. */
export function reconnectDelayMs(n: number, random: number): number {
  const base = Math.min(30_000, 1000 * 2 ** n);
  return Math.round(base * (0.75 + random * 0.5));
}

/** Reads one connection until it ends; true when the server said `ready` (the backoff then starts over). */
async function readStream(token: string, signal: AbortSignal, h: LiveHandlers): Promise<'ended' | 'ready' | 401> {
  const res = await fetch('/api/v1/events', {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal,
    cache: 'no-store',
  });
  if (res.status === 401) return 401;
  if (!res.ok || res.body === null) return 'ended';
  let ready = false;
  const parser = createParser({
    onEvent: (m) => {
      if (m.event === 'ready') {
        ready = true;
        h.onState('live');
      } else if (m.event !== undefined && eventTypes.has(m.event)) {
        try {
          h.onEvent({ type: m.event, data: JSON.parse(m.data) } as LiveEvent);
        } catch (_) {
          // A malformed event is skipped; the pages re-read the API on the next one anyway.
        }
      }
    },
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return ready ? 'ready' : 'ended';
    parser.feed(value);
  }
}

/** Connects and keeps reconnecting until the returned function is called. */
export function connectLiveEvents(token: string, h: LiveHandlers): () => void {
  const abort = new AbortController();
  const run = async (): Promise<void> => {
    let attempt = 0;
    let first = true;
    while (!abort.signal.aborted) {
      h.onState(first ? 'connecting' : 'retrying');
      first = false;
      let outcome: 'ended' | 'ready' | 401 = 'ended';
      try {
        outcome = await readStream(token, abort.signal, h);
      } catch (_) {
        // Dropped (network, server restart, proxy timeout): reconnect below.
      }
      if (abort.signal.aborted) break;
      if (outcome === 401) {
        h.onUnauthorized();
        break;
      }
      attempt = outcome === 'ready' ? 0 : attempt + 1;
      h.onState('retrying');
      await new Promise((resolve) => setTimeout(resolve, reconnectDelayMs(attempt, Math.random())));
    }
    h.onState('closed');
  };
  void run();
  return () => abort.abort();
}
