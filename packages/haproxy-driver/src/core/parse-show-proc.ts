/** One process line of the master CLI's `show proc`. */
export interface ProcEntry {
  readonly pid: number;
  /** Reloads this process has survived (for the master: reloads performed). */
  readonly reloads: number;
}

/** The master CLI's `show proc`, parsed. */
export interface ProcStatus {
  readonly master: ProcEntry & { readonly failedReloads: number };
  /** Current workers. */
  readonly workers: readonly ProcEntry[];
  /** Workers of earlier configurations still finishing their connections. */
  readonly oldWorkers: readonly ProcEntry[];
}

/**
 * Parses `show proc` (HAProxy 2.6):
 * `<pid> master <reloads> [failed: <n>] <uptime> <version>`, then `# workers`, `# old workers`, `# programs`
 * sections of `<pid> worker <reloads> <uptime> <version>` lines. Returns null when no master line is found.
 */
export function parseShowProc(text: string): ProcStatus | null {
  let master: ProcStatus['master'] | null = null;
  const workers: ProcEntry[] = [];
  const oldWorkers: ProcEntry[] = [];
  let sectionName = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) {
      sectionName = line.slice(1).trim();
      continue;
    }
    const masterMatch = /^(\d+)\s+master\s+(\d+)\s+\[failed:\s*(\d+)\]/.exec(line);
    if (masterMatch) {
      master = { pid: Number(masterMatch[1]), reloads: Number(masterMatch[2]), failedReloads: Number(masterMatch[3]) };
      continue;
    }
    const workerMatch = /^(\d+)\s+worker\s+(\d+)/.exec(line);
    if (!workerMatch) continue;
    const entry = { pid: Number(workerMatch[1]), reloads: Number(workerMatch[2]) };
    if (sectionName === 'workers') workers.push(entry);
    else if (sectionName === 'old workers') oldWorkers.push(entry);
  }
  return master === null ? null : { master, workers, oldWorkers };
}
