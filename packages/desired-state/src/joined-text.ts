/**
 * A long text carried as the parts it is joined from (haproxy.cfg as its sections), so that whoever needs the
 * parts — a diff comparing sections by reference, the value-tree encoder storing one piece per part — gets them
 * from the value itself, and the text is joined only by whoever needs the characters (a file write).
 *
 * It stands for the string `parts.join(separator)` everywhere the value travels: `JSON.stringify` and
 * `canonicalJson` write that string, and a stored value decodes as it. Immutable; never subclassed.
 */
export class JoinedText {
  readonly parts: readonly string[];
  readonly separator: string;

  constructor(parts: readonly string[], separator: string) {
    this.parts = parts;
    this.separator = separator;
    Object.freeze(this);
  }

  /** The text. Joined on every call: a caller that needs it more than once keeps it. */
  toString(): string {
    return this.parts.join(this.separator);
  }

  /** What `JSON.stringify` writes: the text, as if the value were the string. */
  toJSON(): string {
    return this.toString();
  }
}

/** A text given either as a string or as its parts. */
export type Text = string | JoinedText;

/** The characters of a text. */
export function textOf(text: Text): string {
  return typeof text === 'string' ? text : text.toString();
}

/** Whether two texts hold the same characters; parts held by reference are compared without joining. */
export function isSameText(a: Text, b: Text): boolean {
  if (a === b) return true;
  if (typeof a !== 'string' && typeof b !== 'string' && a.separator === b.separator) {
    if (a.parts === b.parts) return true;
    if (a.parts.length === b.parts.length && a.parts.every((p, i) => p === b.parts[i])) return true;
  }
  return textOf(a) === textOf(b);
}
