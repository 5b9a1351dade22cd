// The structural-schema engine: pruning, defaulting and the API server's wording of each kind of failure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { field, pruneAndDefault, validateAgainstSchema } from './schema-validation.ts';
import { arr, asObject, immutable, int, map, obj, rule, str } from './structural-schema.ts';

const schema = obj(
  {
    spec: obj(
      {
        name: str({ minLength: 1, maxLength: 5, pattern: '^[a-z]+$' }),
        port: int({ minimum: 1, maximum: 65535 }),
        mode: str({ enum: ['A', 'B'], default: 'A' }),
        items: arr(obj({ key: str(), value: str({ default: 'v' }) }, { required: ['key'] }), {
          maxItems: 2,
          minItems: 1,
          listType: 'map',
          listMapKeys: ['key'],
        }),
        tags: arr(str(), { listType: 'set' }),
        labels: map(str(), { maxProperties: 1 }),
        fixed: { ...str(), rules: [immutable] },
        at: str({ format: 'date-time' }),
      },
      {
        required: ['name'],
        rules: [rule('port must be even', (self) => Number(asObject(self)['port'] ?? 0) % 2 === 0)],
      },
    ),
  },
  { required: ['spec'] },
);

function check(value: unknown, old?: unknown): string[] {
  const unknown: string[] = [];
  const pruned = pruneAndDefault(schema, value, '', unknown);
  return validateAgainstSchema(schema, pruned, old).map((p) => `${p.field}: ${p.message}`);
}

const blocked =
  '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

describe('pruning and defaulting', () => {
  it('drops undeclared fields and nulls, reports their paths, and defaults recursively in key order', () => {
    const unknown: string[] = [];
    const out = pruneAndDefault(
      schema,
      { spec: { name: 'a', extra: 1, mode: null, items: [{ key: 'k', junk: true }] }, other: {} },
      '',
      unknown,
    );
    assert.deepEqual(unknown, ['other', 'spec.extra', 'spec.items[0].junk']);
    assert.deepEqual(out, { spec: { items: [{ key: 'k', value: 'v' }], mode: 'A', name: 'a' } });
    assert.deepEqual(Object.keys(asObject(asObject(out)['spec'])), ['items', 'mode', 'name']);
  });
});

// This describe only groups short, independent cases of one rule each: its length is their number.
describe('validation messages', () => {
  it('Required, then the rules are not evaluated', () => {
    assert.deepEqual(check({ spec: { port: 3 } }), ['spec.name: Required value', blocked]);
    assert.deepEqual(check({}), ['spec: Required value', blocked]);
  });
  it('bounds, lengths and patterns are Invalid with the validator detail; the rules still run', () => {
    assert.deepEqual(check({ spec: { name: '', port: 70001 } }), [
      'spec.name: Invalid value: "": spec.name in body should be at least 1 chars long',
      'spec.name: Invalid value: "": spec.name in body should match \'^[a-z]+$\'',
      'spec.port: Invalid value: 70001: spec.port in body should be less than or equal to 65535',
      'spec: Invalid value: "object": port must be even',
    ]);
    assert.deepEqual(check({ spec: { name: 'a', port: 0 } }), [
      'spec.port: Invalid value: 0: spec.port in body should be greater than or equal to 1',
    ]);
  });
  it('too long, enum, too many and types block the rules', () => {
    assert.deepEqual(check({ spec: { name: 'abcdef', mode: 'C' } }), [
      'spec.name: Too long: may not be longer than 5',
      'spec.mode: Unsupported value: "C": supported values: "A", "B"',
      blocked,
    ]);
    assert.deepEqual(check({ spec: { name: 'a', port: '80', items: [{ key: 'a' }, { key: 'b' }, { key: 'c' }] } }), [
      'spec.port: Invalid value: "string": spec.port in body must be of type integer: "string"',
      'spec.items: Too many: 3: must have at most 2 items',
      blocked,
    ]);
    assert.deepEqual(check({ spec: { name: 'a', labels: { a: 'x', b: 'y' } } }), [
      'spec.labels: Too many: 2: must have at most 1 items',
      blocked,
    ]);
  });
  it('minItems, list-map and set duplicates, date-time', () => {
    assert.deepEqual(check({ spec: { name: 'a', items: [] } }), [
      'spec.items: Invalid value: 0: spec.items in body should have at least 1 items',
    ]);
    assert.deepEqual(check({ spec: { name: 'a', items: [{ key: 'k' }, { key: 'k' }], tags: ['x', 'x'] } }), [
      'spec.items[1]: Duplicate value: map[string]interface {}{"key":"k"}',
      'spec.tags[1]: Duplicate value: "x"',
    ]);
    assert.deepEqual(check({ spec: { name: 'a', at: 'yesterday' } }), [
      'spec.at: Invalid value: "yesterday": spec.at in body must be of type date-time: "yesterday"',
      blocked,
    ]);
    assert.deepEqual(check({ spec: { name: 'a', at: '2024-05-01T10:00:00Z' } }), []);
  });
  it('transition rules compare with the old object on updates only', () => {
    assert.deepEqual(check({ spec: { name: 'a', fixed: 'x' } }), []);
    assert.deepEqual(check({ spec: { name: 'a', fixed: 'y' } }, { spec: { name: 'a', fixed: 'x' } }), [
      'spec.fixed: Invalid value: "string": Value is immutable',
    ]);
  });
  it('a rule that reads an absent field reports the evaluation error with its message', () => {
    const reads = obj({ a: str() }, { rules: [rule('a must be set', (self) => field(asObject(self), 'a') === 'x')] });
    assert.deepEqual(
      validateAgainstSchema(reads, {}, undefined).map((p) => `${p.field}: ${p.message}`),
      ['<nil>: Invalid value: "object": no such key: a evaluating rule: a must be set'],
    );
  });
});
