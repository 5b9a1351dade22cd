/**
 * Orders resourceVersions. They are opaque by contract but decimal etcd revisions in practice; decimals compare
 * numerically (by length, then digits, with no BigInt), anything else by code units. '' (unknown) is lowest.
 */
export function compareResourceVersions(a: string, b: string): number {
  if (a === b) return 0;
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
