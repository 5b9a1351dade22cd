// Where Postgres keeps its data when the stack runs as root. Postgres refuses to run as root, so it runs as the
// `postgres` user, which must be able to walk down to its data directory. A checkout under a 0700 home directory
// (root's /root, say) cannot be walked by that user; its data then lives under /var/lib/portolan instead, in a
// folder named after the state directory, so `up`, `status` and `down` all find the same one.
import { createHash } from 'node:crypto';
import { statSync, type Stats } from 'node:fs';
import path from 'node:path';

/** The user and primary group a process runs as. */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/** Where relocated data directories live (outside any home directory, readable only by their owners). */
export const RELOCATED_ROOT = '/var/lib/portolan';

/** True when `who` may traverse every folder from the root down to `dir` (search permission on each). */
export function canTraverse(dir: string, who: RunAs, stat: (p: string) => Stats = statSync): boolean {
  let current = path.resolve(dir);
  for (;;) {
    const s = stat(current);
    const bit = s.uid === who.uid ? 0o100 : s.gid === who.gid ? 0o010 : 0o001;
    if ((s.mode & bit) === 0) return false;
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/**
 * The folder for Postgres's data, socket and logs: `<stateDir>/postgres` when the postgres user can reach the
 * state directory's parent (the state directory itself is opened up by the caller), else a folder of its own under
 * RELOCATED_ROOT.
 */
export function postgresHome(stateDir: string, runAs: RunAs | undefined, stat?: (p: string) => Stats): string {
  const inState = path.join(stateDir, 'postgres');
  if (runAs === undefined) return inState;
  const parent = path.dirname(path.resolve(stateDir));
  if (canTraverse(parent, runAs, stat)) return inState;
  const tag = createHash('sha256').update(path.resolve(stateDir)).digest('hex').slice(0, 12);
  return path.join(RELOCATED_ROOT, `postgres-${tag}`);
}
