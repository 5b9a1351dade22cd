/**
 * A TrafficScript string literal holding `value` verbatim: backslash, double quote and `$` (which would start an
 * interpolated variable) are escaped, and control characters written as escapes, so no value can end the literal,
 * read a variable or start a new line of the rule.
 */
export function tsString(value: string): string {
  const escaped = value
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\$/g, '\\$')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t');
  return `"${escaped}"`;
}
