// Hash routes: the page is the fragment (`#/appliances/edge/snapshots/42`), so the console serves one index.html
// and every view is a bookmarkable address. Parsing is pure; `useRoute` follows hashchange.
import { useEffect, useState } from 'preact/hooks';

/** A page and its parameters. */
export type Route =
  | { readonly page: 'fleet' }
  | { readonly page: 'appliance'; readonly name: string }
  | { readonly page: 'snapshot'; readonly name: string; readonly id: string }
  | { readonly page: 'operations'; readonly name: string; readonly applyId: string }
  | { readonly page: 'explain'; readonly name: string; readonly q: string; readonly snapshot: string }
  | { readonly page: 'at'; readonly name: string; readonly time: string }
  | { readonly page: 'rollback'; readonly name: string; readonly to: string }
  | { readonly page: 'diff'; readonly from: string; readonly to: string }
  | { readonly page: 'not-found'; readonly path: string };

const seg = (s: string): string => encodeURIComponent(s);

/** Addresses of the pages, for links. */
export const href = {
  fleet: (): string => '#/',
  appliance: (name: string): string => `#/appliances/${seg(name)}`,
  snapshot: (name: string, id: string): string => `#/appliances/${seg(name)}/snapshots/${seg(id)}`,
  operations: (name: string, applyId: string): string => `#/appliances/${seg(name)}/applies/${seg(applyId)}/operations`,
  explain: (name: string, q = '', snapshot = ''): string =>
    `#/appliances/${seg(name)}/explain${queryOf({ q, snapshot })}`,
  at: (name: string, time = ''): string => `#/appliances/${seg(name)}/at${queryOf({ time })}`,
  rollback: (name: string, to = ''): string => `#/appliances/${seg(name)}/rollback${queryOf({ to })}`,
  diff: (from: string, to: string): string => `#/diff/${seg(from)}/${seg(to)}`,
};

function queryOf(q: Record<string, string>): string {
  const params = new URLSearchParams(Object.entries(q).filter(([, v]) => v !== ''));
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}

/** The route of a location hash (`#/…`); unknown paths are `not-found`, never an exception. */
export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const [path = '/', qs = ''] = raw.split('?', 2);
  const q = new URLSearchParams(qs);
  let parts: string[];
  try {
    parts = path
      .split('/')
      .filter((p) => p !== '')
      .map(decodeURIComponent);
  } catch (_) {
    return { page: 'not-found', path };
  }
  const [a, name, b, id, c] = parts;
  if (parts.length === 0) return { page: 'fleet' };
  if (a === 'diff' && parts.length === 3) return { page: 'diff', from: name!, to: b! };
  if (a !== 'appliances' || name === undefined) return { page: 'not-found', path };
  if (parts.length === 2) return { page: 'appliance', name };
  if (b === 'snapshots' && id !== undefined && parts.length === 4) return { page: 'snapshot', name, id };
  if (b === 'applies' && id !== undefined && c === 'operations' && parts.length === 5)
    return { page: 'operations', name, applyId: id };
  if (parts.length !== 3) return { page: 'not-found', path };
  if (b === 'explain') return { page: 'explain', name, q: q.get('q') ?? '', snapshot: q.get('snapshot') ?? '' };
  if (b === 'at') return { page: 'at', name, time: q.get('time') ?? '' };
  if (b === 'rollback') return { page: 'rollback', name, to: q.get('to') ?? '' };
  return { page: 'not-found', path };
}

/** The current route, following the location hash. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = (): void => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Goes to a page (a form's result: the query lives in the address so it can be bookmarked). */
export function navigate(to: string): void {
  if (location.hash !== to) location.hash = to;
}
