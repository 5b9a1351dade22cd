/**
 * Plain-text tables for the terminal: a header row, then rows, columns padded to the widest cell and separated
 * by two spaces. Trailing blanks are trimmed so copy-paste stays clean.
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, i) => Math.max(...all.map((row) => displayWidth(row[i] ?? ''))));
  return (
    all
      .map((row) =>
        headers
          .map((_, i) => pad(row[i] ?? '', widths[i] ?? 0))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** A cell that is too long for a table, shortened with an ellipsis (full values are in `-o json`). */
export function truncateCell(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** A list in one cell: the first `max` items, then "+N more". */
export function listCell(items: readonly string[], max: number): string {
  if (items.length === 0) return '-';
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} +${items.length - max} more` : shown;
}

function displayWidth(text: string): number {
  return [...text].length;
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}
