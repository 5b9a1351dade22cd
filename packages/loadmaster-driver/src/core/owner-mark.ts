/**
 * Ownership marks on the LoadMaster. NickNames (and rule/certificate names) allow only letters, digits and
 * `. @ - _`, must start with a letter or digit — so the shared `portolan:<appliance>:<source>` note cannot be
 * used as is. The compact mark is:
 *
 *     ptl_<appliance>_<kind>_<slug>_<hash>
 *
 * - `appliance`: the fleet-config appliance name (a DNS label: never contains `_`);
 * - `kind`: `vs` virtual service, `sv` SubVS, `rl` content rule, `ct` certificate;
 * - `slug`: a readable hint from the object's key (lower-case, `[a-z0-9.-]`, at most 24 characters);
 * - `hash`: 8 hex digits of FNV-1a over kind and the full key — the identity (slugs may be truncated).
 * Splitting on `_` gives exactly five fields; anything else is not Portolan's and is never touched.
 */

/** The kinds of owned objects. */
export type OwnedKind = 'vs' | 'sv' | 'rl' | 'ct';

/** A parsed mark. */
export interface OwnerMark {
  readonly appliance: string;
  readonly kind: OwnedKind;
  readonly slug: string;
  readonly hash: string;
}

const KINDS: readonly string[] = ['vs', 'sv', 'rl', 'ct'];

/** The mark for an object of `kind` identified by `key` on `appliance`. */
export function ownerMark(appliance: string, kind: OwnedKind, key: string): string {
  return `ptl_${appliance}_${kind}_${slugOf(key)}_${fnv1a(`${kind}\u0000${key}`)}`;
}

/** Parses a mark; null when the name is not a Portolan mark. */
export function parseOwnerMark(name: string): OwnerMark | null {
  const parts = name.split('_');
  if (parts.length !== 5 || parts[0] !== 'ptl') return null;
  const [, appliance = '', kind = '', slug = '', hash = ''] = parts;
  if (!/^[a-z0-9-]+$/.test(appliance) || !KINDS.includes(kind) || !/^[0-9a-f]{8}$/.test(hash)) return null;
  return { appliance, kind: kind as OwnedKind, slug, hash };
}

/** True when `name` is a mark of `kind` written for `appliance`. */
export function isOwnedBy(name: string, appliance: string, kind: OwnedKind): boolean {
  const mark = parseOwnerMark(name);
  return mark !== null && mark.appliance === appliance && mark.kind === kind;
}

function slugOf(key: string): string {
  const slug = key
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return slug.slice(0, 24).replace(/[-.]+$/, '') || 'x';
}

/** FNV-1a 32-bit over the UTF-16 code units, as 8 hex digits. Deterministic, dependency-free. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
