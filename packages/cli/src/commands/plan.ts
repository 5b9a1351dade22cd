import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.ts';
import { UsageError, usageErrorFrom } from '../command.ts';

const usage = `Usage: portolan plan -f <manifest|dir> [-f ...] [--appliance-profile <fleet.yaml> [--appliance <name>]]
                     [--driver haproxy|vtm|loadmaster] [--cluster <name>] [-o json|summary]

Plans the desired state of one appliance for a set of Kubernetes manifests (multi-document YAML or JSON, kind: List
included) with no services running, and prints it as JSON (or a one-line-per-item summary with -o summary).
Conditions (accepted, rejected with a reason, warnings) are part of the output and are also listed on stderr.

Without --appliance-profile the appliance is a default one of the given --driver (haproxy when omitted) with the
default controller portolan.dev/ingress-controller. When the manifests contain no IngressClass at all, every class
they name (and the default class) is assumed to be this appliance's. TLS Secrets with plaintext data are
fingerprinted locally (SHA-256) and their data dropped; nothing secret is printed.`;

/** `portolan plan -f …`: the planner's pure core over manifests, for reviews and CI. */
export const planCommand: CliCommand = {
  path: ['plan'],
  summary: 'print the desired state the planner computes for a set of manifests (no services needed)',
  usage,
  async run(args) {
    let values: ReturnType<typeof parse>['values'];
    try {
      values = parse(args).values;
    } catch (e) {
      usageErrorFrom(e);
    }
    const files = values.file ?? [];
    if (files.length === 0) throw new UsageError('at least one -f <manifest> is required');
    if (values.output !== undefined && values.output !== 'json' && values.output !== 'summary')
      throw new UsageError('-o must be json or summary');
    const driver = values.driver ?? 'haproxy';
    if (driver !== 'haproxy' && driver !== 'vtm' && driver !== 'loadmaster')
      throw new UsageError('--driver must be haproxy, vtm or loadmaster');
    if (values['appliance-profile'] === undefined && values.appliance !== undefined)
      throw new UsageError('--appliance needs --appliance-profile');
    const { planManifests, readManifestFiles } = await import('./plan-manifests.ts');
    const docs = await readManifestFiles(files);
    const result = await planManifests(docs, {
      profileFile: values['appliance-profile'],
      appliance: values.appliance,
      cluster: values.cluster,
      driver,
    });
    for (const note of result.notes) process.stderr.write(`note: ${note}\n`);
    for (const c of result.desired.conditions)
      process.stderr.write(
        `${c.type.padEnd(8)} ${c.object.kind} ${c.object.namespace}/${c.object.name} (${c.object.cluster}): ${c.reason} — ${c.message}\n`,
      );
    if (values.output === 'summary') process.stdout.write(`${result.summary.join('\n')}\n`);
    else
      process.stdout.write(
        `${JSON.stringify({ appliance: result.desired.appliance, driver: result.desired.driver, plannerVersion: result.plannerVersion, snapshot: result.root, desired: result.desired }, null, 2)}\n`,
      );
    return 0;
  },
};

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    options: {
      file: { type: 'string', short: 'f', multiple: true },
      'appliance-profile': { type: 'string' },
      appliance: { type: 'string' },
      cluster: { type: 'string' },
      driver: { type: 'string' },
      output: { type: 'string', short: 'o' },
    },
    strict: true,
    allowPositionals: false,
  });
}
