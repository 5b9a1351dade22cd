// The recorded scenario's inputs: one Kubernetes change as published, the keys a full list of them carries, and
// the fleet config of the scenario's single vTM appliance.
import { createHash, randomBytes } from 'node:crypto';
import type { KubeKind } from '@portolan/kube-model';
import type { WatchEventType } from '@portolan/watcher';

/** One Kubernetes change: kind, watch event type, API object. */
export type Change = readonly [KubeKind, WatchEventType, Record<string, unknown>];

/** The keys (`namespace/name`, or `name` when cluster-scoped) a full list would carry, per kind. */
export function keysByKind(changes: readonly Change[]): Partial<Record<KubeKind, string[]>> {
  const out: Partial<Record<KubeKind, string[]>> = {};
  for (const [kind, , object] of changes) {
    const m = object['metadata'] as { namespace?: string; name: string };
    (out[kind] ??= []).push(m.namespace ? `${m.namespace}/${m.name}` : m.name);
  }
  return out;
}

/**
 * The scenario's operator token (approve, rollback and resume need one): its hash is in the fleet config's
 * console.tokens, made as `newToken`/`hashToken` of @portolan/access make them.
 */
export const OPERATOR_TOKEN = `ptl_${randomBytes(32).toString('base64url')}`;

/** The fleet config of the scenario: one vTM appliance on the emulator, its own stream, database and Redis. */
export function fleetYaml(o: {
  appliance: string;
  emulatorUrl: string;
  natsUrl: string;
  stream: string;
  postgresUrl: string;
  redisUrl: string;
}): string {
  return `version: 1
clusters:
  - name: c1
    staleAfterSeconds: 60
appliances:
  - name: ${o.appliance}
    driver: vtm
    vtm: { url: "${o.emulatorUrl}", username: admin, passwordFile: vtm-password, defaultTrafficIpGroup: tip-default }
    drift: { intervalSeconds: 3600, policy: correct }
bus: { url: "${o.natsUrl}", stream: ${o.stream}, subjectPrefix: ${o.stream} }
store: { url: "${o.postgresUrl}" }
leases: { redisUrl: "${o.redisUrl}" }
secrets: { keyFile: fleet.key }
console:
  tokens:
    - { name: scenario-operator, role: operator, sha256: ${createHash('sha256').update(OPERATOR_TOKEN).digest('hex')} }
`;
}
