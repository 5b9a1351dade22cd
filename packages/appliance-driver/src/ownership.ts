/**
 * Ownership marks: every object a driver creates carries a note naming Portolan, the appliance and the
 * source object; a driver never changes or deletes an object whose note it cannot parse as its own.
 */

const PREFIX = 'portolan:';

/** The note written on an owned object (vTM `note`, LoadMaster nickname prefix, HAProxy comment). */
export function ownerNote(appliance: string, source: string): string {
  return `${PREFIX}${appliance}:${source}`;
}

/** Parses a note written by `ownerNote`; null when the object is not Portolan's. */
export function parseOwnerNote(note: string): { appliance: string; source: string } | null {
  if (!note.startsWith(PREFIX)) return null;
  const rest = note.slice(PREFIX.length);
  const sep = rest.indexOf(':');
  if (sep <= 0) return null;
  return { appliance: rest.slice(0, sep), source: rest.slice(sep + 1) };
}
