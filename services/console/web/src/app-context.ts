// What every page reads from the app: the API client, the signed-in session, and the live event stream.
import { createContext } from 'preact';
import { useContext, useEffect, useRef } from 'preact/hooks';
import type { ApiClient } from './api/api-client.ts';
import type { LiveEvent, LiveState } from './api/live-events.ts';
import type { Session } from './api/types.ts';

/** What listeners get: an event, or null after a reconnect (events may have been missed: re-read everything). */
export type LiveSignal = LiveEvent | null;

/** Fans the one event stream out to the pages that listen. */
export class LiveHub {
  readonly #listeners = new Set<(e: LiveSignal) => void>();

  /** Listens until the returned function is called. */
  subscribe(listener: (e: LiveSignal) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Hands an event (or the reconnect signal) to every listener. */
  publish(e: LiveSignal): void {
    for (const l of [...this.#listeners]) l(e);
  }
}

/** The signed-in app's shared parts. */
export interface AppContextValue {
  readonly api: ApiClient;
  readonly session: Session;
  readonly live: LiveHub;
  readonly liveState: LiveState;
}

/** Provided by the shell once the session is known; pages below it always have one. */
export const AppContext = createContext<AppContextValue | null>(null);

/** The app's shared parts (only under the signed-in shell). */
export function useApp(): AppContextValue {
  const v = useContext(AppContext);
  if (v === null) throw new TypeError('useApp outside the signed-in shell');
  return v;
}

/** Whether the signed-in user may write (approve, roll back, resume). */
export function useIsOperator(): boolean {
  return useApp().session.role === 'operator';
}

/**
 * Calls `onEvent` for each live event `relevant` accepts, and after every reconnect, at most once per `delayMs` (a
 * burst of applies is one refresh). The latest callbacks are used without re-subscribing.
 */
export function useLiveRefresh(relevant: (e: LiveEvent) => boolean, onEvent: () => void, delayMs = 800): void {
  const { live } = useApp();
  const latest = useRef({ relevant, onEvent });
  latest.current = { relevant, onEvent };
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const off = live.subscribe((e) => {
      if ((e !== null && !latest.current.relevant(e)) || timer !== null) return;
      timer = setTimeout(() => {
        timer = null;
        latest.current.onEvent();
      }, delayMs);
    });
    return () => {
      off();
      if (timer !== null) clearTimeout(timer);
    };
  }, [live, delayMs]);
}
