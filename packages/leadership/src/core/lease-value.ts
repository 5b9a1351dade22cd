/** The value stored under a lease key: the holder's id and a nonce unique to one acquisition. */
export interface LeaseValue {
  readonly holder: string;
  readonly nonce: string;
}

/** Encodes a lease value; the nonce makes a restarted replica with the same id a different owner. */
export function formatLeaseValue(value: LeaseValue): string {
  return `${value.holder}#${value.nonce}`;
}

/** Decodes a lease value written by `formatLeaseValue` (the holder id may itself contain '#'). */
export function parseLeaseValue(text: string): LeaseValue {
  const at = text.lastIndexOf('#');
  return at < 0 ? { holder: text, nonce: '' } : { holder: text.slice(0, at), nonce: text.slice(at + 1) };
}

/** The Redis key of a group's lease. */
export function leaseKey(prefix: string, group: string): string {
  return `${prefix}lease:${group}`;
}
