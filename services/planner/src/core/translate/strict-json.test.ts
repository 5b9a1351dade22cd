import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseStrictJson } from './strict-json.ts';
import { checkSchema } from './json-schema.ts';
import {
  vtmMonitor,
  vtmMonitorSchema,
  vtmPersistenceSchema,
  vtmPoolCustomizationSchema,
  vtmVirtualServerCustomizationSchema,
  neutralMonitorSchema,
} from './annotation-schemas.ts';
import { readJson } from './annotation-values.ts';

/** Tenant isolation: a fixed corpus of hostile annotation JSON; each is refused with a reason naming the problem. */
const HOSTILE: { name: string; text: string; reason: RegExp }[] = [
  { name: 'syntax error', text: '{"properties": {', reason: /unexpected end|expected/ },
  { name: 'trailing data', text: '{"properties":{}} x', reason: /after the JSON value/ },
  {
    name: 'duplicate key',
    text: '{"properties":{"basic":{"type":"http","type":"connect"}}}',
    reason: /duplicate key "type"/,
  },
  { name: '__proto__ key', text: '{"__proto__":{"polluted":true}}', reason: /key "__proto__" is not allowed/ },
  {
    name: 'constructor key',
    text: '{"properties":{"constructor":{"prototype":{"x":1}}}}',
    reason: /key "constructor" is not allowed/,
  },
  { name: 'prototype key', text: '{"prototype":1}', reason: /key "prototype" is not allowed/ },
  { name: 'deep nesting', text: '[[[[[[[[[[1]]]]]]]]]]', reason: /deeper than 6/ },
  { name: 'huge number', text: '{"properties":{"basic":{"timeout":1e400}}}', reason: /out of range/ },
  { name: 'unsafe integer', text: '{"properties":{"basic":{"timeout":9007199254740993}}}', reason: /out of range/ },
  { name: 'too large', text: `{"properties":{"http":{"path":"/${'a'.repeat(20000)}"}}}`, reason: /at most 16384/ },
  { name: 'control character in string', text: '{"a":"x\u0001"}', reason: /control character/ },
  { name: 'NaN literal', text: '{"a":NaN}', reason: /unexpected character/ },
];

for (const h of HOSTILE) {
  test(`hostile JSON refused: ${h.name}`, () => {
    const r = parseStrictJson(h.text);
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.message, h.reason);
  });
}

/** Valid JSON that the allowlist schemas must refuse: unknown fields, wrong types, bounds, SSRF-ish fields. */
const SCHEMA_REFUSALS: { name: string; schema: Parameters<typeof checkSchema>[1]; value: unknown; problem: string }[] =
  [
    {
      name: 'unknown top-level key',
      schema: vtmMonitorSchema,
      value: { properties: {}, extra: 1 },
      problem: '$.extra: unknown key',
    },
    {
      name: 'monitor machine (probes another host)',
      schema: vtmMonitorSchema,
      value: { properties: { basic: { machine: '169.254.169.254:80' } } },
      problem: '$.properties.basic.machine: unknown key',
    },
    {
      name: 'wrong type',
      schema: vtmMonitorSchema,
      value: { properties: { basic: { timeout: '5' } } },
      problem: '$.properties.basic.timeout: must be an integer',
    },
    {
      name: 'out of bounds',
      schema: vtmMonitorSchema,
      value: { properties: { basic: { timeout: 0 } } },
      problem: '$.properties.basic.timeout: must be between 1 and 60',
    },
    {
      name: 'enum',
      schema: vtmMonitorSchema,
      value: { properties: { basic: { type: 'program' } } },
      problem: '$.properties.basic.type: must be one of connect, http, tcp_transaction',
    },
    {
      name: 'persistence failure url (redirect elsewhere)',
      schema: vtmPersistenceSchema,
      value: { properties: { basic: { type: 'cookie', url: 'http://evil' } } },
      problem: '$.properties.basic.url: unknown key',
    },
    {
      name: "pool customization nodes (another tenant's backends)",
      schema: vtmPoolCustomizationSchema,
      value: { properties: { basic: { nodes_table: [] } } },
      problem: '$.properties.basic.nodes_table: unknown key',
    },
    {
      name: 'pool customization monitors (appliance object reference)',
      schema: vtmPoolCustomizationSchema,
      value: { properties: { basic: { monitors: ['Full HTTP'] } } },
      problem: '$.properties.basic.monitors: unknown key',
    },
    {
      name: 'vs customization request_rules',
      schema: vtmVirtualServerCustomizationSchema,
      value: { properties: { basic: { request_rules: ['x'] } } },
      problem: '$.properties.basic.request_rules: unknown key',
    },
    {
      name: 'neutral monitor required type',
      schema: neutralMonitorSchema,
      value: { path: '/healthz' },
      problem: '$.type: required',
    },
    {
      name: 'host header injection',
      schema: neutralMonitorSchema,
      value: { type: 'http', hostHeader: 'a\r\nX: y' },
      problem: '$.hostHeader: has a disallowed format',
    },
  ];

for (const r of SCHEMA_REFUSALS) {
  test(`schema refuses: ${r.name}`, () => {
    assert.equal(checkSchema(r.value as never, r.schema), r.problem);
  });
}

test('an annotation naming the problem: readJson reports the annotation and the JSON path', () => {
  const v = readJson(
    { 'vtm.pulsesecure.net/monitor': '{"properties":{"basic":{"machine":"x"}}}' },
    ['vtm.pulsesecure.net/monitor'],
    vtmMonitorSchema,
  );
  assert.deepEqual(v, {
    kind: 'invalid',
    issue: {
      reason: 'InvalidAnnotationJson',
      message: 'vtm.pulsesecure.net/monitor: $.properties.basic.machine: unknown key',
    },
  });
});

test('the documented vTM monitor example maps to an HTTPS monitor with its timeout and status regex', () => {
  const json = { properties: { basic: { type: 'http', timeout: 5, use_ssl: true }, http: { status_regex: '^403$' } } };
  assert.equal(checkSchema(json, vtmMonitorSchema), null);
  assert.deepEqual(vtmMonitor(json), {
    type: 'https',
    path: '/',
    hostHeader: '',
    expectStatus: '^403$',
    intervalSeconds: 3,
    timeoutSeconds: 5,
    failures: 3,
    vendor: json,
  });
});

test('property: fuzzed JSON never throws, never pollutes Object.prototype, and accepted values round-trip', () => {
  const before = Object.getOwnPropertyNames(Object.prototype).sort().join();
  fc.assert(
    fc.property(
      fc.oneof(
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.string(),
        fc.jsonValue().map((v) => `{"__proto__":${JSON.stringify(v)}}`),
        fc.jsonValue().map((v) => `{"a":${JSON.stringify(v)},"a":1}`),
      ),
      (text) => {
        const r = parseStrictJson(text);
        if (r.ok) assert.deepEqual(r.value, JSON.parse(text));
        for (const schema of [vtmMonitorSchema, vtmPoolCustomizationSchema, neutralMonitorSchema])
          if (r.ok) checkSchema(r.value, schema);
      },
    ),
    { numRuns: 2000 },
  );
  assert.equal(Object.getOwnPropertyNames(Object.prototype).sort().join(), before);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});
