/** The decoded form of a list `continue` token: the list's resourceVersion and the key to start after. */
export interface ContinueToken {
  readonly rv: number;
  readonly start: string;
}

function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(token: string): string | null {
  try {
    const base64 = token.replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch (e) {
    // atob rejects what is not base64 (a DOMException); the fatal decoder rejects bytes that are not UTF-8 (TypeError).
    if (e instanceof DOMException || e instanceof TypeError) return null;
    throw e;
  }
}

/** Encodes a continue token in the API server's format (base64url JSON `{v, rv, start}`); clients treat it as opaque. */
export function encodeContinueToken(rv: number, lastKey: string): string {
  return toBase64Url(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `${lastKey}\u0000` }));
}

/** Decodes a continue token, or returns null when it is not one this server issued. */
export function decodeContinueToken(token: string): ContinueToken | null {
  const text = fromBase64Url(token);
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { v, rv, start } = parsed as Record<string, unknown>;
    if (v !== 'meta.k8s.io/v1' || typeof rv !== 'number' || typeof start !== 'string') return null;
    return { rv, start: start.endsWith('\u0000') ? start.slice(0, -1) : start };
  } catch (e) {
    if (e instanceof SyntaxError) return null;
    throw e;
  }
}
