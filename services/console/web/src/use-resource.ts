// Loading an API answer into a page: the last good answer stays on screen while a refresh runs, so nothing blinks.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { isAbort } from './api/api-client.ts';

/** An answer being loaded: `data` is the newest good one (kept through refreshes), `error` the newest failure. */
export interface Resource<T> {
  readonly data: T | null;
  readonly error: unknown;
  readonly loading: boolean;
  /** Loads again (a live event, a retry button); the current data stays until the answer comes. */
  readonly reload: () => void;
}

/**
 * Runs `load` now and whenever `key` changes (a new key drops the old data: it answered another question). A
 * refresh that fails keeps the data and reports the error beside it.
 */
export function useResource<T>(key: string, load: (signal: AbortSignal) => Promise<T>): Resource<T> {
  const [state, setState] = useState<{ key: string; data: T | null; error: unknown; loading: boolean }>({
    key,
    data: null,
    error: null,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const abort = new AbortController();
    setState((s) => (s.key === key ? { ...s, loading: true } : { key, data: null, error: null, loading: true }));
    loadRef.current(abort.signal).then(
      (data) => {
        if (!abort.signal.aborted) setState({ key, data, error: null, loading: false });
      },
      (error: unknown) => {
        if (!abort.signal.aborted && !isAbort(error)) setState((s) => ({ ...s, error, loading: false }));
      },
    );
    return () => abort.abort();
  }, [key, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const current = state.key === key ? state : { data: null, error: null, loading: true };
  return { data: current.data, error: current.error, loading: current.loading, reload };
}
