/**
 * One line of a progress bar for long work (walking a snapshot chain, replaying operations), e.g.
 * `walking snapshots [########------------]  40/100`. The shell writes it to stderr with a carriage return, and
 * only when stderr is a terminal.
 */
export function progressLine(label: string, done: number, total: number, width = 24): string {
  const fraction = total <= 0 ? 1 : Math.min(1, Math.max(0, done / total));
  const filled = Math.round(fraction * width);
  const count = String(total).length;
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(done).padStart(count)}/${total}`;
}
