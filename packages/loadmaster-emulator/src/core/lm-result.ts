/**
 * What a command returns before it is put on the wire: data (rendered as XML or flat JSON by the
 * adapters), a plain "Command completed ok", or a failure with the HTTP status the appliance uses.
 */

/** A list of strings; XML repeats `item` tags inside the field, JSON gives an array. */
export interface LmStringList {
  readonly kind: 'strings';
  readonly item: string;
  readonly values: readonly string[];
}

/** One output value. Arrays of objects become repeated tags in XML and arrays in JSON. */
export type LmOutValue = string | number | boolean | LmStringList | LmOutObject | readonly LmOutObject[];

/** An output object: ordered fields as the appliance prints them. */
export interface LmOutObject {
  readonly [field: string]: LmOutValue;
}

/** A command's outcome. `wrote` says whether it changed the configuration (for the write log and the state file). */
export type LmResult =
  | { readonly ok: true; readonly wrote: boolean; readonly data: LmOutObject | null }
  | { readonly ok: false; readonly stat: number; readonly message: string };

/** A successful result with data. */
export function okData(data: LmOutObject, wrote = false): LmResult {
  return { ok: true, wrote, data };
}

/** A successful result answering "Command completed ok". */
export function okDone(wrote = true): LmResult {
  return { ok: true, wrote, data: null };
}

/** A refusal with the appliance's HTTP status and error text. */
export function fail(stat: number, message: string): LmResult {
  return { ok: false, stat, message };
}

/** The appliance's answer for a missing mandatory parameter (HTTP 400). */
export function missing(param: string): LmResult {
  return fail(400, `${param}: String Value missing`);
}

/** Builds a string list output value. */
export function strings(item: string, values: readonly string[]): LmStringList {
  return { kind: 'strings', item, values };
}
