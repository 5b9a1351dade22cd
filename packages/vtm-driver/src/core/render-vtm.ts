import { ownerNote } from '@portolan/appliance-driver';
import {
  compareCodeUnits,
  type DesiredState,
  type ObjectCondition,
  type VirtualService,
} from '@portolan/desired-state';
import { renderPool } from './render-pool.ts';
import { renderAcmeChallenges } from './render-acme-challenges.ts';
import { formatRef, renderVirtualServer } from './render-virtual-server.ts';
import type { AcmeHttpChallenge } from './traffic-script.ts';
import { vtmName } from './vtm-names.ts';
import { writeOrder, type VtmObject, type VtmObjects } from './vtm-objects.ts';

/** Appliance settings render needs (from the fleet config's `vtm` section). */
export interface VtmRenderConfig {
  readonly appliance: string;
  /** Traffic IP group for Ingresses that name no address; null → such Ingresses are rejected (vTM's documented rule). */
  readonly defaultTrafficIpGroup: string | null;
  /**
   * Traffic managers that host the traffic IP groups the driver creates; null leaves `machines` out of the
   * rendered group (the runner fills in every traffic manager of the cluster when it creates one).
   */
  readonly machines: readonly string[] | null;
}

/** Run-time inputs of render that are not part of the desired state (kept out of snapshots and their hashes). */
export interface VtmRenderInputs {
  /** ACME HTTP-01 challenges pending right now (from the ACME issuer); empty or absent: no challenge rule. */
  readonly acmeChallenges?: readonly AcmeHttpChallenge[];
}

/**
 * Renders the neutral desired state into the vTM objects the driver owns (as the vTM Kubernetes integration documents): a traffic IP group per
 * address, a virtual server (and its rules) per virtual service, a pool (monitor, persistence) per pool, an SSL
 * server key per certificate. Pure; services the appliance cannot carry become conditions, not exceptions.
 */
export function renderVtm(desired: DesiredState, config: VtmRenderConfig, inputs: VtmRenderInputs = {}): VtmObjects {
  const { accepted, conditions } = acceptVirtualServices(desired.virtualServices, config);
  const objects: VtmObject[] = [];
  const certificates = new Map(desired.certificates.map((c) => [c.name, c]));
  const acme = renderAcmeChallenges(accepted, certificates, config.appliance, inputs.acmeChallenges ?? []);
  objects.push(...acme.objects);
  const addresses = new Map<string, VirtualService>();
  for (const { vs, trafficIpGroup } of [...accepted, ...acme.listeners]) {
    if (vs.address.kind !== 'default' && !addresses.has(vs.address.ip)) addresses.set(vs.address.ip, vs);
    objects.push(
      ...renderVirtualServer(vs, { appliance: config.appliance, trafficIpGroup, certificates, acmeRule: acme.rule }),
    );
  }
  for (const [ip, first] of addresses) {
    objects.push({
      type: 'traffic_ip_groups',
      name: vtmName('tip', ip),
      ...(first.address.kind === 'shared' ? { adoptableIp: ip } : {}),
      properties: {
        basic: {
          enabled: true,
          ipaddresses: [ip],
          ...(config.machines === null ? {} : { machines: [...config.machines] }),
          note: ownerNote(config.appliance, `TrafficIP/${ip}`),
        },
      },
    });
  }
  for (const pool of desired.pools) objects.push(...renderPool(pool, config.appliance));
  for (const cert of desired.certificates) {
    objects.push({
      type: 'ssl/server_keys',
      name: vtmName('key', cert.name),
      // The fingerprint in the note changes exactly when the Secret's material does, so diff sees rotations.
      properties: {
        basic: { note: ownerNote(config.appliance, `${formatRef(cert.secret)}@${cert.fingerprint.slice(0, 16)}`) },
      },
      secret: cert.secret,
    });
  }
  return { objects: sortObjects(dedupe(objects)), conditions };
}

/** A virtual service the appliance can carry, with the traffic IP group it listens on. */
export interface Accepted {
  readonly vs: VirtualService;
  readonly trafficIpGroup: string;
}

/** Applies the vTM integration's documented restrictions: default group required, shared addresses carry no passthrough or user scripts. */
function acceptVirtualServices(
  services: readonly VirtualService[],
  config: VtmRenderConfig,
): { accepted: Accepted[]; conditions: ObjectCondition[] } {
  const accepted: Accepted[] = [];
  const conditions: ObjectCondition[] = [];
  const listeners = new Set<string>();
  const report = (vs: VirtualService, type: ObjectCondition['type'], reason: string, message: string): void => {
    for (const object of vs.owners) conditions.push({ object, type, reason, message });
  };
  for (const original of services) {
    let vs = original;
    if (vs.address.kind === 'default' && config.defaultTrafficIpGroup === null) {
      report(
        vs,
        'Rejected',
        'NoDefaultTrafficIpGroup',
        `no address annotation and appliance "${config.appliance}" has no default traffic IP group`,
      );
      continue;
    }
    if (vs.address.kind === 'shared' && vs.protocol === 'tls-passthrough') {
      report(
        vs,
        'Rejected',
        'SharedAddressPassthrough',
        `ssl-passthrough cannot be used on shared address ${vs.address.ip}: routing needs the HTTP payload`,
      );
      continue;
    }
    const listener = `${vs.address.kind === 'default' ? `default:${config.defaultTrafficIpGroup}` : vs.address.ip}:${vs.port}`;
    if (listeners.has(listener)) {
      report(
        vs,
        'Rejected',
        'PortInUse',
        `port ${vs.port} on ${listener.slice(0, listener.lastIndexOf(':'))} is already used by another virtual service`,
      );
      continue;
    }
    listeners.add(listener);
    if (
      vs.address.kind === 'shared' &&
      (vs.requestScript !== null || vs.responseScript !== null || vs.customization !== null)
    ) {
      report(
        vs,
        'Warning',
        'SharedAddressIgnoresCustomization',
        'TrafficScript and virtual server customizations are not supported on shared addresses; ignored',
      );
      vs = { ...vs, requestScript: null, responseScript: null, customization: null };
    }
    const trafficIpGroup =
      vs.address.kind === 'default' ? (config.defaultTrafficIpGroup as string) : vtmName('tip', vs.address.ip);
    accepted.push({ vs, trafficIpGroup });
  }
  return { accepted, conditions };
}

/** Sorts by write order, then name: equal inputs give equal output. */
export function sortObjects(objects: readonly VtmObject[]): VtmObject[] {
  return [...objects].sort(
    (a, b) => writeOrder.indexOf(a.type) - writeOrder.indexOf(b.type) || compareCodeUnits(a.name, b.name),
  );
}

function dedupe(objects: readonly VtmObject[]): VtmObject[] {
  const seen = new Set<string>();
  return objects.filter((o) => {
    const key = `${o.type}/${o.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
