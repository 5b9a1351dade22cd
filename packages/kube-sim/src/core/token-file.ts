// kube-apiserver's `--token-auth-file`: CSV records `token,user,uid[,"group1,group2"]`, read as Go's encoding/csv
// reads them (quoted fields, "" for a quote, blank lines skipped, no comments, no trimming), then turned into users
// as apiserver's tokenfile authenticator does.
import type { UserInfo } from './rbac-authorizer.ts';

/** The parsed file: each token's user, or why the file is refused (kube-apiserver would not start). */
export type TokenFileParse =
  | { readonly ok: true; readonly users: ReadonlyMap<string, UserInfo> }
  | { readonly ok: false; readonly reason: string };

type Records = { readonly ok: true; readonly records: string[][] } | { readonly ok: false; readonly reason: string };

/** Reads one quoted field starting at `text[start] === '"'`; returns the value and the index after the quote. */
function quotedField(text: string, start: number): { value: string; end: number } | null {
  let value = '';
  let i = start + 1;
  for (;;) {
    const close = text.indexOf('"', i);
    if (close < 0) return null;
    value += text.slice(i, close);
    if (text[close + 1] !== '"') return { value, end: close + 1 };
    value += '"';
    i = close + 2;
  }
}

/** Splits CSV text into records the way Go's csv.Reader does with its defaults (and FieldsPerRecord = -1). */
export function parseCsvRecords(input: string): Records {
  const text = input.replace(/\r\n/g, '\n');
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  const line = () => text.slice(0, i).split('\n').length;
  // A comma at the very end still opens a last (empty) field: the loop runs until that record is pushed.
  while (i < text.length || record.length > 0) {
    if (record.length === 0 && text[i] === '\n') {
      i += 1; // a blank line is no record
      continue;
    }
    if (text[i] === '"') {
      const field = quotedField(text, i);
      const next = field === null ? undefined : text[field.end];
      if (field === null || (next !== undefined && next !== ',' && next !== '\n'))
        return { ok: false, reason: `parse error on line ${line()}: extraneous or missing " in quoted-field` };
      record.push(field.value);
      i = field.end;
    } else {
      const end = text.slice(i).search(/[,\n]/);
      const value = end < 0 ? text.slice(i) : text.slice(i, i + end);
      if (value.includes('"'))
        return { ok: false, reason: `parse error on line ${line()}: bare " in non-quoted-field` };
      record.push(value);
      i += value.length;
    }
    if (text[i] !== ',') {
      records.push(record);
      record = [];
    }
    i += 1;
  }
  return { ok: true, records };
}

/**
 * Parses a token file. A record needs at least three fields; a fourth is the comma-separated groups (split as
 * given: `""` is one empty group). Records with an empty token are skipped and a repeated token keeps its last
 * record, as the API server does (it only logs both).
 */
export function parseTokenFile(text: string): TokenFileParse {
  const parsed = parseCsvRecords(text);
  if (!parsed.ok) return parsed;
  const users = new Map<string, UserInfo>();
  for (const record of parsed.records) {
    const [token = '', name = '', uid = '', groups] = record;
    if (record.length < 3)
      return {
        ok: false,
        reason: `must have at least 3 columns (token, user name, user uid), found ${record.length}`,
      };
    if (token === '') continue;
    users.set(token, { name, uid, groups: groups === undefined ? [] : groups.split(',') });
  }
  return { ok: true, users };
}
