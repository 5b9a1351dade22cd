/**
 * The state one HTTP transaction carries through the rules of a virtual server: the request as rules have edited
 * it so far, the backend's response once response rules run, and `connection.data` (shared by every rule, request
 * and response, of the connection). Request rules run in order over one transaction, so an edit made by one rule
 * is seen by the next and by the request forwarded to the node.
 */

/** Header fields in order, names as written; several fields may share a name. */
export type HeaderFields = [name: string, value: string][];

/** One transaction's mutable state (see the module comment). Created per request by `newTransaction`. */
export interface HttpTransaction {
  readonly method: string;
  /** Path and query as they will be forwarded (http.setPath changes the path, never the query). */
  url: string;
  readonly headers: HeaderFields;
  /** Set once the backend answered, for response rules. */
  response: { status: number; readonly headers: HeaderFields } | null;
  /** `connection.data`: per-connection values rules hand to later rules. */
  readonly data: Map<string, string>;
  readonly sni: string;
}

/** What a request looks like on arrival. */
export interface TransactionInput {
  readonly host: string;
  readonly url: string;
  readonly method?: string;
  readonly sni?: string;
  /** Request headers by lower-case name (one value each). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The header fields as received (order and duplicates kept); used instead of `headers` when given. */
  readonly rawHeaders?: readonly (readonly [string, string])[];
}

/** A transaction for a request on arrival; `data` is the connection's (shared with earlier requests on it). */
export function newTransaction(input: TransactionInput, data: Map<string, string> = new Map()): HttpTransaction {
  const headers: HeaderFields =
    input.rawHeaders !== undefined
      ? input.rawHeaders.map(([n, v]) => [n, v])
      : Object.entries(input.headers ?? {}).map(([n, v]) => [n, v]);
  if (!headers.some(([n]) => n.toLowerCase() === 'host') && input.host !== '') headers.unshift(['Host', input.host]);
  return { method: input.method ?? 'GET', url: input.url, headers, response: null, data, sni: input.sni ?? '' };
}

/** The value of a header: its fields joined with ", " (RFC 9110 §5.3), '' when absent; names compare case-insensitively. */
export function headerValue(fields: HeaderFields, name: string): string {
  const wanted = name.toLowerCase();
  return fields
    .filter(([n]) => n.toLowerCase() === wanted)
    .map(([, v]) => v)
    .join(', ');
}

/** Drops every field named `name`. */
export function removeHeader(fields: HeaderFields, name: string): void {
  const wanted = name.toLowerCase();
  for (let i = fields.length - 1; i >= 0; i -= 1) if (fields[i]?.[0].toLowerCase() === wanted) fields.splice(i, 1);
}

/** Replaces every field named `name` by one field with `value`, in the place of the first. */
export function setHeader(fields: HeaderFields, name: string, value: string): void {
  const wanted = name.toLowerCase();
  const at = fields.findIndex(([n]) => n.toLowerCase() === wanted);
  removeHeader(fields, name);
  fields.splice(at < 0 ? fields.length : at, 0, [name, value]);
}

/** The path part of a URL (before '?'). */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** The query string of a URL (after the first '?'; '' when none). */
export function queryOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}
