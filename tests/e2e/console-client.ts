// A client of the console's API for end-to-end tests: JSON calls with a bearer token, and the event stream.
import { createParser } from 'eventsource-parser';

/** One answer: the status and the parsed JSON body. */
export interface ApiReply<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly text: string;
}

/** Calls `base` + path with the token (none: an anonymous call); the body is JSON when given. */
export async function call<T = Record<string, unknown>>(
  base: string,
  token: string | null,
  urlPath: string,
  init: { method?: string; body?: unknown } = {},
): Promise<ApiReply<T>> {
  const headers: Record<string, string> = {};
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`${base}${urlPath}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await r.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the text says what came back.
  }
  return { status: r.status, body: body as T, text };
}

/** The appliance's head snapshot id, as the console lists it; fails when it has none. */
export async function headSnapshot(base: string, token: string, appliance: string): Promise<string> {
  const r = await call<{ appliances: { name: string; head: { id: string } | null }[] }>(
    base,
    token,
    '/api/v1/appliances',
  );
  if (r.status !== 200) throw new Error(`GET /api/v1/appliances: ${r.status} ${r.text}`);
  const id = r.body.appliances.find((a) => a.name === appliance)?.head?.id;
  if (id === undefined) throw new Error(`the console lists no head for ${appliance}: ${r.text}`);
  return id;
}

/** One event of the stream. */
export interface StreamEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** The console's event stream, read in the background until closed. */
export function openEvents(
  base: string,
  token: string,
): { events: StreamEvent[]; close(): void; opened: Promise<void> } {
  const events: StreamEvent[] = [];
  const abort = new AbortController();
  let markOpen: () => void = () => {};
  const opened = new Promise<void>((resolve) => (markOpen = resolve));
  const parser = createParser({
    onEvent: (e) => {
      events.push({ event: e.event ?? 'message', data: JSON.parse(e.data) as Record<string, unknown> });
      if (e.event === 'ready') markOpen();
    },
  });
  void (async () => {
    const r = await fetch(`${base}/api/v1/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: abort.signal,
    });
    const decoder = new TextDecoder();
    for await (const chunk of r.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  })().catch(() => {
    // Closed by the test, or by the console stopping.
  });
  return { events, opened, close: () => abort.abort() };
}
