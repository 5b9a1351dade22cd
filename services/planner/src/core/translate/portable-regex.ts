import { PortolanError } from '@portolan/errors';
/**
 * The regular expressions an Ingress may hand to an appliance. HAProxy compiles them with PCRE2, vTM with its own
 * PCRE, the planner's checks run in JavaScript, and the three disagree at the edges: `[^]` is "any character" to
 * JavaScript and a syntax error to PCRE2, `\u0032` is a code point to one and an error to the other, lookbehind
 * and class syntax differ. One expression the appliance refuses makes `haproxy -c` refuse the whole configuration,
 * for everyone. So the planner accepts only a subset whose meaning is the same in every engine — literals,
 * `.`, anchors, groups, alternation, bounded quantifiers, the classes `\d \w \s` (and negations) and plain
 * bracket classes — and refuses anything else on its object, with the position and the reason.
 */

/** Why a pattern is outside the portable subset, or null when it is inside. */
export function portableRegexProblem(pattern: string): string | null {
  try {
    new Parser(pattern).parse();
    return null;
  } catch (e) {
    if (e instanceof RegexSubsetError) return e.message;
    throw e;
  }
}

/** A pattern outside the portable subset (internal to the parser; reported as a string). */
class RegexSubsetError extends PortolanError {
  readonly code = 'PLANNER_REGEX_NOT_PORTABLE';
  constructor(message: string, at: number) {
    super(`${message} at position ${at}`);
  }
}

/** Quantifier bounds above this differ between engines (PCRE2 caps repeat counts at 65535; keep far below). */
const MAX_REPEAT = 1000;
/** Escapes of a character class meaning the same everywhere. */
const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S']);
/** Punctuation that may be escaped to stand for itself. */
const ESCAPABLE = new Set([...'.\\/-^$*+?()[]{}|']);
/** Characters with a meaning outside a class: a literal needs an escape. */
const SPECIAL = new Set([...'\\^$.|?*+()[]{}']);

/** A cursor over one pattern: mutable because it is a recursive-descent parser's position, discarded after the parse. */
class Parser {
  private pos = 0;
  private readonly src: string;

  constructor(src: string) {
    this.src = src;
  }

  parse(): void {
    for (let i = 0; i < this.src.length; i++) {
      const c = this.src.charCodeAt(i);
      if (c < 0x20 || c > 0x7e) throw new RegexSubsetError('only printable ASCII is allowed', i);
    }
    this.alternation();
    if (this.pos < this.src.length) throw new RegexSubsetError(`unexpected "${this.src[this.pos]}"`, this.pos);
  }

  private peek(): string | undefined {
    return this.src[this.pos];
  }

  private alternation(): void {
    this.sequence();
    while (this.peek() === '|') {
      this.pos++;
      this.sequence();
    }
  }

  private sequence(): void {
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === '|' || c === ')') return;
      if (c === '^' || c === '$') {
        this.pos++;
        if (this.isQuantifierStart()) throw new RegexSubsetError('an anchor cannot be repeated', this.pos);
        continue;
      }
      const assertion = this.atom();
      if (!this.isQuantifierStart()) continue;
      // PCRE2 refuses a repeated assertion (`\b*`); JavaScript accepts some: refuse it here.
      if (assertion) throw new RegexSubsetError('an assertion cannot be repeated', this.pos);
      this.quantifier();
    }
  }

  private isQuantifierStart(): boolean {
    const c = this.peek();
    return c === '*' || c === '+' || c === '?' || c === '{';
  }

  /** Reads one atom; true when it is a zero-width assertion (`\b`, `\B`), which may not be repeated. */
  private atom(): boolean {
    const at = this.pos;
    const c = this.src[this.pos++]!;
    switch (c) {
      case '.':
        return false;
      case '(':
        this.group(at);
        return false;
      case '[':
        this.bracketClass(at);
        return false;
      case '\\': {
        const next = this.src[this.pos];
        this.escape(at, false);
        return next === 'b' || next === 'B';
      }
      case '*':
      case '+':
      case '?':
      case '{':
        throw new RegexSubsetError(`"${c}" has nothing to repeat`, at);
      default:
        if (SPECIAL.has(c)) throw new RegexSubsetError(`"${c}" must be escaped to stand for itself`, at);
        return false;
    }
  }

  private group(at: number): void {
    if (this.peek() === '?') {
      if (this.src[this.pos + 1] !== ':')
        throw new RegexSubsetError(
          'only plain "(...)" and "(?:...)" groups are allowed (no lookaround, named groups or flags)',
          at,
        );
      this.pos += 2;
    }
    this.alternation();
    if (this.peek() !== ')') throw new RegexSubsetError('unclosed group', at);
    this.pos++;
  }

  private escape(at: number, inClass: boolean): void {
    const c = this.src[this.pos++];
    if (c === undefined) throw new RegexSubsetError('a trailing backslash', at);
    if (CLASS_ESCAPES.has(c)) return;
    if (!inClass && (c === 'b' || c === 'B')) return;
    if (ESCAPABLE.has(c)) return;
    throw new RegexSubsetError(`the escape "\\${c}" means different things to different engines`, at);
  }

  private bracketClass(at: number): void {
    // PCRE2 reads `[:...:]`, `[.....]` and `[=...=]` as POSIX syntax (and refuses it outside a class).
    const posixLike = this.peek();
    if (
      (posixLike === ':' || posixLike === '.' || posixLike === '=') &&
      this.src
        .slice(this.pos + 1)
        .match(/^[^\]]*\]/)?.[0]
        .endsWith(`${posixLike}]`)
    ) {
      throw new RegexSubsetError(`a class written [${posixLike}...${posixLike}] reads as POSIX syntax to PCRE2`, at);
    }
    if (this.peek() === '^') this.pos++;
    let items = 0;
    let previous: string | null = null; // the last single character, the start of a possible range
    for (;;) {
      const i = this.pos;
      const c = this.src[this.pos++];
      if (c === undefined) throw new RegexSubsetError('unclosed character class', at);
      if (c === ']') {
        if (items === 0) throw new RegexSubsetError('an empty character class ("[]" or "[^]")', at);
        return;
      }
      if (c === '[')
        throw new RegexSubsetError('"[" inside a class must be escaped (POSIX classes differ between engines)', i);
      if (c === '\\') {
        const e = this.peek();
        this.escape(i, true);
        previous = e !== undefined && ESCAPABLE.has(e) ? e : null;
        items++;
        continue;
      }
      if (c === '-' && previous !== null && this.peek() !== ']' && this.peek() !== undefined) {
        const end = this.rangeEnd(i);
        if (end < previous) throw new RegexSubsetError(`the range "${previous}-${end}" is out of order`, i);
        previous = null;
        continue;
      }
      if (c === '-' && items > 0 && previous === null && this.peek() !== ']')
        throw new RegexSubsetError('a "-" after a range or class escape must be escaped', i);
      previous = c;
      items++;
    }
  }

  /** The character ending a range (a literal or an escaped punctuation character). */
  private rangeEnd(at: number): string {
    const c = this.src[this.pos++]!;
    if (c !== '\\') {
      if (c === '[') throw new RegexSubsetError('"[" inside a class must be escaped', at);
      return c;
    }
    const e = this.src[this.pos++];
    if (e === undefined || !ESCAPABLE.has(e)) throw new RegexSubsetError('a range must end in a single character', at);
    return e;
  }

  private quantifier(): void {
    const at = this.pos;
    const c = this.src[this.pos++]!;
    if (c === '{') {
      const m = /^(\d{1,4})(,(\d{0,4}))?\}/.exec(this.src.slice(this.pos));
      if (m === null)
        throw new RegexSubsetError('"{" must be a repeat count such as {2}, {2,} or {2,5}, or be escaped', at);
      const low = Number(m[1]);
      const high = m[3] === undefined ? low : m[3] === '' ? low : Number(m[3]);
      if (low > MAX_REPEAT || high > MAX_REPEAT)
        throw new RegexSubsetError(`repeat counts above ${MAX_REPEAT} are not allowed`, at);
      if (high < low) throw new RegexSubsetError(`the repeat count {${low},${high}} is out of order`, at);
      this.pos += m[0].length;
    }
    if (this.peek() === '?') this.pos++; // lazy: the same in every engine
    if (this.peek() === '+') throw new RegexSubsetError('possessive quantifiers are not allowed', this.pos);
    if (this.isQuantifierStart()) throw new RegexSubsetError('a quantifier cannot follow another', this.pos);
  }
}
