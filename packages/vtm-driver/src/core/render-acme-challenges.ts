import { ownerNote } from '@portolan/appliance-driver';
import type { Certificate, VirtualService } from '@portolan/desired-state';
import type { Accepted } from './render-vtm.ts';
import { servesAcmeChallenges } from './render-virtual-server.ts';
import { acmeChallengeRule, servableAcmeChallenges, type AcmeHttpChallenge } from './traffic-script.ts';
import { vtmName } from './vtm-names.ts';
import type { VtmObject } from './vtm-objects.ts';

/** What pending ACME challenges add to a render. */
export interface AcmeChallengeObjects {
  /** The challenge rule (empty when nothing is pending). */
  readonly objects: readonly VtmObject[];
  /** Its name, to place first in the request rules of port-80 HTTP services; null when nothing is pending. */
  readonly rule: string | null;
  /**
   * Challenge-only port-80 services for addresses that serve an ACME certificate over https but have no port-80
   * HTTP service: the vTM integration reserves port 80 on such an address for Let's Encrypt. They answer challenges and 404.
   */
  readonly listeners: readonly Accepted[];
}

/** Renders the HTTP-01 challenge rule and the listeners that must carry it, while challenges are pending. */
export function renderAcmeChallenges(
  accepted: readonly Accepted[],
  certificates: ReadonlyMap<string, Certificate>,
  appliance: string,
  challenges: readonly AcmeHttpChallenge[],
): AcmeChallengeObjects {
  const servable = servableAcmeChallenges(challenges);
  if (servable.length === 0) return { objects: [], rule: null, listeners: [] };
  const rule = vtmName('acme', 'http-01');
  const text = acmeChallengeRule(ownerNote(appliance, 'AcmeChallenges/http-01'), servable);
  const covered = new Set(accepted.filter(({ vs }) => servesAcmeChallenges(vs)).map(listenKey));
  const listeners = new Map<string, Accepted>();
  for (const entry of accepted) {
    const { vs } = entry;
    const key = listenKey(entry);
    if (vs.protocol !== 'https' || covered.has(key) || listeners.has(key)) continue;
    if (!vs.certificates.some((name) => certificates.get(name)?.acme === true)) continue;
    listeners.set(key, { vs: challengeOnlyService(vs, key), trafficIpGroup: entry.trafficIpGroup });
  }
  return { objects: [{ type: 'rules', name: rule, text }], rule, listeners: [...listeners.values()] };
}

/** Services on one traffic IP group share an address: the group name identifies it. */
function listenKey(entry: Accepted): string {
  return entry.trafficIpGroup;
}

function challengeOnlyService(https: VirtualService, key: string): VirtualService {
  return {
    name: `acme-challenges.${key}`,
    address: https.address,
    port: 80,
    protocol: 'http',
    owners: https.owners,
    certificates: [],
    routes: [],
    defaultPool: null,
    redirectToHttpsPort: null,
    requestScript: null,
    responseScript: null,
    customization: null,
  };
}
