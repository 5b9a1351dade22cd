/**
 * What the Runtime API can change in a loaded crt-list: lines after the first (the default certificate, which HAProxy
 * serves to clients without a matching SNI) can be removed (`del ssl crt-list`) and added (`add ssl crt-list`).
 */
export interface CrtListEdit {
  /** Lines to remove, in file order (a changed line is removed and added again). */
  readonly remove: readonly string[];
  /** Lines to add, in file order. */
  readonly add: readonly string[];
}

/**
 * The runtime edit turning the crt-list `observed` into `desired`, or null when only a reload can: a crt-list HAProxy
 * has not loaded, another default certificate, or a certificate on two lines (deletion goes by certificate path).
 */
export function crtListEdit(observed: string | null, desired: string): CrtListEdit | null {
  if (observed === null) return null;
  const have = lines(observed);
  const want = lines(desired);
  if (have.length === 0 || want.length === 0 || have[0] !== want[0]) return null;
  if (!uniqueCertificates(have) || !uniqueCertificates(want)) return null;
  const kept = new Set(want);
  const had = new Set(have);
  return { remove: have.filter((l) => !kept.has(l)), add: want.filter((l) => !had.has(l)) };
}

/** The certificate path a crt-list line names (its first word). */
export function lineCertificate(line: string): string {
  return line.split(' ')[0] ?? '';
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '');
}

function uniqueCertificates(list: readonly string[]): boolean {
  return new Set(list.map(lineCertificate)).size === list.length;
}
