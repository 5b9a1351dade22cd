import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { contentHashOfText } from './hash.ts';
import { fleetConfigSchema, type FleetConfig } from './schema.ts';

/** A fleet config that failed validation: `problems` lists each as "path: reason". */
export class FleetConfigError extends Error {
  readonly code = 'FLEET_CONFIG_INVALID';
  readonly problems: readonly string[];
  constructor(source: string, problems: readonly string[], options?: ErrorOptions) {
    super(`invalid fleet config ${source}:\n  - ${problems.join('\n  - ')}`, options);
    this.name = 'FleetConfigError';
    this.problems = problems;
  }
}

/** A loaded fleet config, its content hash (a planner input) and the directory relative paths resolve from. */
export interface LoadedFleetConfig {
  readonly config: FleetConfig;
  readonly hash: string;
  readonly baseDir: string;
}

/** Parses and validates fleet config text; errors name the offending path and the reason. */
export function parseFleetConfig(text: string, source = '<inline>', baseDir = '.'): LoadedFleetConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true });
  } catch (cause) {
    throw new FleetConfigError(source, [`YAML: ${(cause as Error).message}`], { cause });
  }
  const result = fleetConfigSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const where = issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') {
        return `${where === '(root)' ? '' : `${where}.`}${issue.keys.join(', ')}: unknown field`;
      }
      return `${where}: ${issue.message}`;
    });
    throw new FleetConfigError(source, problems);
  }
  // The console section decides who may look, not what is planned: tokens come and go without new snapshots.
  const planned = { ...result.data, console: undefined };
  return { config: resolvePaths(result.data, baseDir), hash: contentHashOfText(planned), baseDir };
}

/** Reads, parses and validates a fleet config file. */
export async function loadFleetConfig(file: string): Promise<LoadedFleetConfig> {
  const text = await readFile(file, 'utf8');
  return parseFleetConfig(text, file, path.dirname(path.resolve(file)));
}

/** Paths in the file are relative to the file, so a config works from any working directory. */
function resolvePaths(c: FleetConfig, baseDir: string): FleetConfig {
  const abs = (p: string | undefined): string | undefined => (p === undefined ? undefined : path.resolve(baseDir, p));
  return {
    ...c,
    clusters: c.clusters.map((cl) => ({ ...cl, ...(cl.kubeconfig ? { kubeconfig: abs(cl.kubeconfig)! } : {}) })),
    appliances: c.appliances.map((a) => ({
      ...a,
      ...(a.haproxy
        ? {
            haproxy: { ...a.haproxy, configDir: abs(a.haproxy.configDir)!, masterSocket: abs(a.haproxy.masterSocket)! },
          }
        : {}),
      ...(a.vtm
        ? {
            vtm: {
              ...a.vtm,
              passwordFile: abs(a.vtm.passwordFile)!,
              ...(a.vtm.acme?.caFile ? { acme: { ...a.vtm.acme, caFile: abs(a.vtm.acme.caFile)! } } : {}),
            },
          }
        : {}),
      ...(a.loadmaster
        ? {
            loadmaster: {
              ...a.loadmaster,
              ...(a.loadmaster.passwordFile ? { passwordFile: abs(a.loadmaster.passwordFile)! } : {}),
              ...(a.loadmaster.apiKeyFile ? { apiKeyFile: abs(a.loadmaster.apiKeyFile)! } : {}),
            },
          }
        : {}),
    })),
    secrets: { ...c.secrets, keyFile: abs(c.secrets.keyFile)! },
    ...(c.console?.tls
      ? {
          console: {
            ...c.console,
            tls: { certFile: abs(c.console.tls.certFile)!, keyFile: abs(c.console.tls.keyFile)! },
          },
        }
      : {}),
  };
}
