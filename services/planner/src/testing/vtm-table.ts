// The vTM annotation table's world and helpers: one small world per row, planned and compared whole (summary form).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApplianceConfig } from '@portolan/fleet-config';
import * as f from './fixtures.ts';
import { planEvents, summarize } from './summary.ts';
import { poolNameOf, type PoolSettings } from '../core/translate/ingress-intent.ts';

export const V = 'vtm.pulsesecure.net';
export const POOL = 'pool default~web~80 monitor=tcp [10.1.0.1:8080@c1]';
export const ROUTE = (ing: string, host = 'a.example.com'): string =>
  `  ${host}/ Prefix -> default~web~80 (c1/default/${ing})`;
const PLAIN: PoolSettings = { monitor: null, persistence: null, tlsToBackend: false, customization: null };
/** The pool a setting produces: its name carries a digest of the settings, so different settings never share a pool. */
export const WEB = (settings: Partial<PoolSettings>): string =>
  poolNameOf('default', { service: 'web', port: 80 }, { ...PLAIN, ...settings });
export const MONITOR = {
  properties: { basic: { type: 'http', timeout: 5, use_ssl: true }, http: { status_regex: '^403$' } },
} as const;

export function ing(
  name: string,
  annotations: Record<string, string>,
  o: {
    tls?: boolean;
    created?: number;
    host?: string;
    rules?: boolean;
    defaultBackend?: boolean;
    className?: string | null;
  } = {},
) {
  const host = o.host ?? 'a.example.com';
  return f.ingress({
    name,
    created: f.at(o.created ?? 0),
    annotations,
    className: o.className === undefined ? 'vtm' : o.className,
    ...(o.rules === false ? {} : { rules: [f.rule(host, ['/', 'Prefix', 'web', 80])] }),
    ...(o.tls ? { tls: [{ hosts: [host], secretName: 'tls' }] } : {}),
    ...(o.defaultBackend ? { defaultBackend: f.backend('web', 80) } : {}),
  });
}

export const BASE = [
  f.ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller'),
  f.service('web', [[undefined, 80]]),
  f.slice('web-1', 'web', undefined, 8080, [['10.1.0.1']]),
  f.tlsSecret('tls', 'cd'.repeat(32)),
];

/** One row: the objects beside BASE, the appliance's settings, and the whole plan wanted (summary form). */
export interface VtmRow {
  readonly name: string;
  readonly objects: Record<string, unknown>[];
  readonly appliance?: Partial<ApplianceConfig>;
  readonly want: string[];
}

/** Registers one test per row: the row's world planned on a vTM appliance `lb` in cluster `c1`. */
export function vtmTable(rows: readonly VtmRow[]): void {
  for (const row of rows)
    test(`vTM: ${row.name}`, () => {
      const cfg = f.fleet([{ name: 'c1' }], [{ ...f.appliance('lb', 'vtm'), ...row.appliance }]);
      const d = planEvents(cfg, f.added('c1', ...BASE, ...row.objects));
      assert.deepEqual(summarize(d), row.want);
    });
}

/** The Ingress with every TLS entry naming `secretName`. */
export function withSecret(o: Record<string, unknown>, secretName: string): Record<string, unknown> {
  const spec = o['spec'] as Record<string, unknown>;
  const tls = (spec['tls'] as { hosts: string[] }[]).map((t) => ({ ...t, secretName }));
  return { ...o, spec: { ...spec, tls } };
}
