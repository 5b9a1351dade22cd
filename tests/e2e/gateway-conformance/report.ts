import { stringify } from 'yaml';
import { EXTENDED_FEATURES, featureLevel, type ConformanceTest, type Feature } from './index.ts';
import type { TestOutcome } from './runner.ts';

/** Upstream's ConformanceReport (conformance/apis/v1/conformancereport.go) for the GATEWAY-HTTP profile. */

export interface ReportInputs {
  readonly version: string;
  readonly date: Date;
  readonly results: readonly { readonly test: ConformanceTest; readonly outcome: TestOutcome }[];
}

/** The extended features the transcribed tests exercise: the ones this run claims and tests. */
function supportedFeatures(tests: readonly ConformanceTest[]): Feature[] {
  const used = new Set(tests.flatMap((t) => t.features).filter((f) => featureLevel(f) === 'extended'));
  return [...used].sort();
}

function section(results: ReportInputs['results']) {
  const failed = results
    .filter((r) => !r.outcome.ok)
    .map((r) => r.test.shortName)
    .sort();
  const passed = results.length - failed.length;
  return {
    result: failed.length === 0 ? 'success' : 'failure',
    statistics: { Failed: failed.length, Passed: passed, Skipped: 0 },
    ...(failed.length === 0 ? {} : { failedTests: failed }),
  };
}

/** The report as YAML: core tests need only core features; extended ones at least one extended feature. */
export function conformanceReport(inputs: ReportInputs): string {
  const isExtended = (t: ConformanceTest): boolean => t.features.some((f) => featureLevel(f) === 'extended');
  const core = inputs.results.filter((r) => !isExtended(r.test));
  const extended = inputs.results.filter((r) => isExtended(r.test));
  const supported = supportedFeatures(inputs.results.map((r) => r.test));
  const unsupported = EXTENDED_FEATURES.filter((f) => !supported.includes(f)).sort();
  const passed = inputs.results.filter((r) => r.outcome.ok).length;
  const report = {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'ConformanceReport',
    date: inputs.date.toISOString().replace(/\.\d+Z$/, 'Z'),
    gatewayAPIChannel: 'standard',
    gatewayAPIVersion: 'v1.3.0',
    implementation: {
      contact: ['https://github.com/portolan/portolan/issues'],
      organization: 'portolan',
      project: 'portolan',
      url: 'https://github.com/portolan/portolan',
      version: inputs.version,
    },
    mode: 'default',
    profiles: [
      {
        name: 'GATEWAY-HTTP',
        core: section(core),
        extended: { ...section(extended), supportedFeatures: supported, unsupportedFeatures: unsupported },
        summary: `${passed} of ${inputs.results.length} transcribed tests passed (HAProxy driver).`,
      },
    ],
  };
  return `# Written by \`npm run conformance:gateway\` (scripts/conformance-gateway.ts); do not edit by hand.\n${stringify(report)}`;
}
