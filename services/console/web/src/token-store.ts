// The bearer token lives in sessionStorage: it survives a reload, not the closing of the tab, and is never sent
// anywhere but the console's own API.

const KEY = 'portolan.console.token';

/** The stored token, or null. */
export function loadToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch (_) {
    return null;
  }
}

/** Stores the token, or forgets it (null). */
export function storeToken(token: string | null): void {
  try {
    if (token === null) sessionStorage.removeItem(KEY);
    else sessionStorage.setItem(KEY, token);
  } catch (_) {
    // Storage disabled: the token then lasts as long as the page.
  }
}
