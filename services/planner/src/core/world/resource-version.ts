/**
 * Orders resourceVersions. They are opaque by contract but decimal etcd revisions in practice; decimals compare
 * numerically (by length, then digits, with no BigInt), anything else by code units. '' (unknown) is lowest.
 */
export function compareResourceVersions(a: string, b: string): number {
  if (a === b) return 0;
  // The usual case (every event's check): two canonical decimals, compared without regexes or copies.
  if (isCanonicalDecimal(a) && isCanonicalDecimal(b))
    return a.length !== b.length ? (a.length < b.length ? -1 : 1) : a < b ? -1 : 1;
  const da = /^\d+$/.test(a);
  const db = /^\d+$/.test(b);
  if (da && db) {
    const x = a.replace(/^0+(?=\d)/, '');
    const y = b.replace(/^0+(?=\d)/, '');
    if (x.length !== y.length) return x.length < y.length ? -1 : 1;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return a < b ? -1 : 1;
}

/** Digits only, without a leading zero (or exactly "0"): such decimals order by length, then by code units. */
function isCanonicalDecimal(s: string): boolean {
  const n = s.length;
  if (n === 0 || (n > 1 && s.charCodeAt(0) === 48)) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}
