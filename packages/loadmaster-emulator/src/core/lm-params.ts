/**
 * Command parameters as the appliance sees them: names are case-insensitive, values are strings
 * (v2 JSON numbers and booleans are stringified first), unknown names are ignored by the commands.
 */
export class LmParams {
  readonly #values: Map<string, string>;

  constructor(entries: Iterable<readonly [string, string]>) {
    this.#values = new Map();
    for (const [k, v] of entries) this.#values.set(k.toLowerCase(), v);
  }

  /** The value of a parameter, or undefined when absent. */
  get(name: string): string | undefined {
    return this.#values.get(name.toLowerCase());
  }

  /** True when the parameter is present (even with an empty value, as `createsubvs=`). */
  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  /** Every (lower-cased name, value) pair. */
  entries(): IterableIterator<[string, string]> {
    return this.#values.entries();
  }
}

/** Parses an appliance boolean input (`Y/N`, `y/n`, `1/0`; v2 also sends true/false); null when invalid. */
export function parseLmBool(value: string): boolean | null {
  switch (value.trim().toLowerCase()) {
    case 'y':
    case 'yes':
    case '1':
    case 'true':
    case 'on':
      return true;
    case 'n':
    case 'no':
    case '0':
    case 'false':
    case 'off':
      return false;
    default:
      return null;
  }
}

/** Parses a whole decimal integer within [min, max]; null when invalid. */
export function parseLmInt(value: string, min: number, max: number): number | null {
  if (!/^-?\d+$/.test(value.trim())) return null;
  const n = Number(value.trim());
  return n >= min && n <= max ? n : null;
}
