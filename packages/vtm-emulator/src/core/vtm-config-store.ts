import { checkReferences, refersTo } from './check-references.ts';
import { leaf, validationError, type VtmErrorBody } from './error-body.ts';
import { factoryObjects } from './factory-objects.ts';
import { mergeProperties } from './merge-properties.ts';
import { jsonSchemas, textTypes } from './schema/index.ts';
import { isObject, validateProperties, type Properties } from './validate-properties.ts';
import { PortolanError } from '@portolan/errors';

/** One stored configuration object: JSON properties, or raw text (TrafficScript rules, CA files). */
export type StoredObject =
  { readonly kind: 'json'; readonly properties: Properties } | { readonly kind: 'text'; readonly text: string };

/** Result of a PUT: created or updated with the full object, or refused with a vTM error body. */
export type PutOutcome =
  | { readonly ok: true; readonly created: boolean; readonly object: StoredObject }
  | { readonly ok: false; readonly status: number; readonly body: VtmErrorBody };

/** Result of a DELETE. */
export type DeleteOutcome =
  { readonly ok: true } | { readonly ok: false; readonly status: number; readonly body: VtmErrorBody };

/** The serialisable content of a store (the state file). */
export interface StoreSnapshot {
  readonly version: 1;
  readonly objects: Readonly<Record<string, Readonly<Record<string, StoredObject>>>>;
}

/**
 * The emulated `config/active` tree: per-type maps of objects with vTM's validation, defaults, merge rules,
 * factory objects and (optionally strict) reference checks. Pure data structure: no I/O, no clock. Mutable by
 * design: it is the emulated appliance's configuration, changed by the requests it receives.
 */
export class VtmConfigStore {
  readonly #objects = new Map<string, Map<string, StoredObject>>();
  readonly #factory = new Set<string>();

  /** Creates a store seeded with factory objects and one traffic manager per machine name. */
  constructor(machines: readonly string[]) {
    for (const type of [...Object.keys(jsonSchemas), ...textTypes]) this.#objects.set(type, new Map());
    for (const f of factoryObjects) this.#seed(f.type, f.name, f.properties, true);
    for (const m of machines) this.#seed('traffic_managers', m, { basic: { nameip: m } }, false);
  }

  #seed(type: string, name: string, properties: Properties, factory: boolean): void {
    const schema = jsonSchemas[type];
    if (schema === undefined) throw new UnknownTypeError(`vTM emulator: unknown configuration type ${type}`);
    this.#objects.get(type)?.set(name, { kind: 'json', properties: mergeProperties(schema, null, properties) });
    if (factory) this.#factory.add(`${type}/${name}`);
  }

  /** Whether `type` is a resource type this emulator serves. */
  hasType(type: string): boolean {
    return this.#objects.has(type);
  }

  /** Whether `type` holds raw text objects. */
  isTextType(type: string): boolean {
    return textTypes.includes(type);
  }

  /** Names of the objects of one type, sorted; empty for an unknown type. */
  list(type: string): string[] {
    return [...(this.#objects.get(type)?.keys() ?? [])].sort();
  }

  /** One object, or undefined. */
  get(type: string, name: string): StoredObject | undefined {
    return this.#objects.get(type)?.get(name);
  }

  /** Whether an object exists. */
  has(type: string, name: string): boolean {
    return this.#objects.get(type)?.has(name) ?? false;
  }

  /** PUT of a JSON object: validates, merges over the existing object (or defaults) and checks references. */
  putJson(type: string, name: string, body: unknown, strict: boolean): PutOutcome {
    const schema = jsonSchemas[type];
    if (schema === undefined) throw new UnknownTypeError(`vTM emulator: putJson on ${type}, which is not a JSON type`);
    if (!isObject(body) || !isObject(body['properties'])) {
      return invalid({
        properties: leaf('json.missing_property', "The body must be an object with a 'properties' object"),
      });
    }
    const problems = validateProperties(body['properties'], schema);
    if (problems !== null) return invalid(problems);
    const given = body['properties'] as Properties;
    const existing = this.get(type, name);
    if (existing === undefined) {
      const missing = schema.requiredOnCreate.filter(([s, k]) => given[s]?.[k] === undefined);
      if (missing.length > 0) {
        return invalid(
          Object.fromEntries(
            missing.map(([s, k]) => [s, { [k]: leaf('json.missing_property', 'Property is required') }]),
          ),
        );
      }
    }
    const merged = mergeProperties(schema, existing?.kind === 'json' ? existing.properties : null, given);
    const badRefs = checkReferences(schema, merged, (t, n) => this.has(t, n), strict);
    if (badRefs !== null) return invalid(badRefs);
    const object: StoredObject = { kind: 'json', properties: merged };
    this.#objects.get(type)?.set(name, object);
    return { ok: true, created: existing === undefined, object };
  }

  /** PUT of a text object (raw body). */
  putText(type: string, name: string, text: string): PutOutcome {
    const existing = this.get(type, name);
    const object: StoredObject = { kind: 'text', text };
    this.#objects.get(type)?.set(name, object);
    return { ok: true, created: existing === undefined, object };
  }

  /** DELETE: refuses factory objects, and (strict) objects another object still refers to. */
  delete(type: string, name: string, strict: boolean, path: string): DeleteOutcome {
    if (!this.has(type, name))
      return {
        ok: false,
        status: 404,
        body: { error_id: 'resource.not_found', error_text: `Resource '${path}' does not exist` },
      };
    if (this.#factory.has(`${type}/${name}`)) {
      return {
        ok: false,
        status: 403,
        body: { error_id: 'resource.builtin', error_text: `Resource '${path}' is built in and cannot be deleted` },
      };
    }
    if (strict) {
      const user = this.#findReferrer(type, name);
      if (user !== null) {
        return {
          ok: false,
          status: 409,
          body: { error_id: 'resource.in_use', error_text: `Resource '${path}' is in use by ${user}` },
        };
      }
    }
    this.#objects.get(type)?.delete(name);
    return { ok: true };
  }

  #findReferrer(type: string, name: string): string | null {
    for (const [otherType, objects] of this.#objects) {
      const schema = jsonSchemas[otherType];
      if (schema === undefined) continue;
      for (const [otherName, object] of objects) {
        if (object.kind === 'json' && refersTo(schema, object.properties, type, name))
          return `${otherType} '${otherName}'`;
      }
    }
    return null;
  }

  /** Everything stored, for the state file. */
  toSnapshot(): StoreSnapshot {
    const objects: Record<string, Record<string, StoredObject>> = {};
    for (const [type, map] of this.#objects)
      objects[type] = Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return { version: 1, objects };
  }

  /** Replaces the content with a snapshot (factory objects stay built in). */
  loadSnapshot(snapshot: StoreSnapshot): void {
    for (const [type, objects] of Object.entries(snapshot.objects)) {
      const map = this.#objects.get(type);
      if (map === undefined) continue;
      map.clear();
      for (const [name, object] of Object.entries(objects)) map.set(name, object);
    }
  }
}

function invalid(info: Parameters<typeof validationError>[0]): PutOutcome {
  return { ok: false, status: 400, body: validationError(info) };
}

/** The emulator was asked about a configuration type it does not serve as JSON (a caller bug, not bad input). */
export class UnknownTypeError extends PortolanError {
  readonly code = 'VTM_EMULATOR_UNKNOWN_TYPE';
}
