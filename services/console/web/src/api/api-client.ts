// The console API over fetch: every call carries the bearer token; an error answer becomes an ApiError.

/** A query string's values; arrays repeat the parameter (`kind=a&kind=b`), empty values are left out. */
export type Query = Readonly<Record<string, string | readonly string[] | undefined>>;

/** A failed API call: the HTTP status and the API's stable error code (`Network` when no answer came). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.status = status;
    this.code = code;
  }
}

/** What the pages call the API through. */
export interface ApiClient {
  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
}

/** `/api/v1<path>?<query>`. */
export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    for (const one of typeof v === 'string' ? [v] : (v ?? [])) if (one !== '') params.append(k, one);
  }
  const qs = params.toString();
  return `/api/v1${path}${qs === '' ? '' : `?${qs}`}`;
}

/** The error an answer carries: the API's `{error: {code, message}}`, else the status line. */
async function errorOf(res: Response): Promise<ApiError> {
  try {
    const body = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
    const { code, message } = body.error ?? {};
    if (typeof code === 'string' && typeof message === 'string') return new ApiError(res.status, code, message);
  } catch (_) {
    // Not JSON (a proxy's page): the status says enough.
  }
  return new ApiError(res.status, `Http${res.status}`, `the console answered ${res.status} ${res.statusText}`);
}

/**
 * A client for `token`. `onUnauthorized` runs on any 401 (the token expired or was revoked): the app then returns to
 * the sign-in page; the call still fails so the page stops what it was doing.
 */
export function apiClient(token: string, onUnauthorized: (e: ApiError) => void): ApiClient {
  const call = async <T>(method: string, url: string, body: unknown, signal?: AbortSignal): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (e) {
      if (signal?.aborted === true) throw e;
      throw new ApiError(0, 'Network', 'the console could not be reached; check the connection and retry', {
        cause: e,
      });
    }
    if (res.ok) return (await res.json()) as T;
    const err = await errorOf(res);
    if (res.status === 401) onUnauthorized(err);
    throw err;
  };
  return {
    get: (path, query, signal) => call('GET', apiUrl(path, query), undefined, signal),
    post: (path, body) => call('POST', apiUrl(path), body),
  };
}

/** The message to show for a failure of any kind. */
export function errorMessage(e: unknown): string {
  if (e instanceof ApiError) return e.status === 0 ? e.message : `${e.message} (${e.code}, ${e.status})`;
  return e instanceof Error ? e.message : String(e);
}

/** Whether a failure is a fetch the page itself cancelled (it moved on): nothing to show. */
export function isAbort(e: unknown): boolean {
  return e instanceof DOMException && e.name === 'AbortError';
}
