/**
 * Small helpers for writing haproxy.cfg text safely.
 */

/**
 * Quotes user-supplied text as one config word. Single quotes stop HAProxy from expanding `$VAR` and
 * backslashes; characters that could end the word or the line (quote, control characters) are dropped,
 * because they cannot appear in a valid path, host or status pattern anyway.
 */
export function quoteWord(text: string): string {
  return `'${text.replace(/['\x00-\x1f\x7f]/g, '')}'`;
}

/** `host:port` as a bind or server address, bracketing IPv6 literals. */
export function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/** Joins the config directory and a bundle-relative path (core code cannot use node:path). */
export function absolutePath(configDir: string, relative: string): string {
  return `${configDir.replace(/\/+$/, '')}/${relative}`;
}

/** Whole seconds or milliseconds as an HAProxy time value. */
export function timeValue(seconds: number): string {
  const ms = Math.max(1, Math.round(seconds * 1000));
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** Indents config lines under a section header. */
export function section(header: string, lines: readonly string[]): string {
  return `${header}\n${lines.map((line) => `    ${line}\n`).join('')}`;
}
