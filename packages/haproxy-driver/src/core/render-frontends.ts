import type { Certificate, DesiredState, VirtualService } from '@portolan/desired-state';
import type { CertificateFile } from './haproxy-bundle.ts';
import { backendName, frontendName } from './haproxy-names.ts';
import { type FrontendContext, type RenderedFrontend, renderFrontend } from './render-frontend.ts';
import { absolutePath } from './config-text.ts';
import {
  type HaproxyRenderOptions,
  type PoolNames,
  certificatePath,
  poolNames,
  sameNames,
  servedCertificateFiles,
} from './render-parts.ts';

/** Every listener's frontend, the certificate files they serve, and what they were rendered from. */
export interface FrontendParts {
  readonly virtualServices: readonly VirtualService[];
  readonly certificates: readonly Certificate[];
  readonly names: PoolNames;
  readonly bridges: ReadonlyMap<string, string>;
  readonly rendered: readonly RenderedFrontend[];
  readonly files: readonly CertificateFile[];
}

/**
 * Renders the frontends, or returns `held` when listeners, pool names, certificates and the bridges (pool backend →
 * spare: routes of a bridged pool point at its spare) are the ones it was rendered from.
 */
export function renderFrontends(
  desired: DesiredState,
  placed: { readonly bridges: ReadonlyMap<string, string>; readonly modes: ReadonlyMap<string, unknown> },
  options: HaproxyRenderOptions,
  held: FrontendParts | null,
): FrontendParts {
  const { bridges, modes } = placed;
  if (
    held !== null &&
    held.virtualServices === desired.virtualServices &&
    held.certificates === desired.certificates &&
    held.bridges === bridges &&
    sameNames(held.names, desired.pools)
  )
    return held;
  const pools = new Set(desired.pools.map((p) => p.name));
  const certByName = new Map(desired.certificates.map((c) => [c.name, c]));
  const ctx: FrontendContext = {
    appliance: desired.appliance,
    configDir: options.configDir,
    defaultAddress: options.defaultAddress,
    serverHeader: options.serverHeader,
    backendOf: (pool, mode) => {
      const own = backendName(pool, mode);
      return pools.has(pool) && modes.has(own) ? (bridges.get(own) ?? own) : null;
    },
    crtListLine: (name) => {
      const cert = certByName.get(name);
      // An ACME certificate has no fingerprint until it is issued: nothing to serve yet.
      if (cert === undefined || cert.fingerprint === '') return null;
      return [absolutePath(options.configDir, certificatePath(cert.name)), ...cert.hosts].join(' ');
    },
  };
  const rendered = [...desired.virtualServices]
    .sort((a, b) => (frontendName(a.name) < frontendName(b.name) ? -1 : 1))
    .map((vs) => renderFrontend(vs, ctx))
    .filter((f): f is RenderedFrontend => f !== null);
  return {
    virtualServices: desired.virtualServices,
    certificates: desired.certificates,
    names: poolNames(desired.pools),
    bridges,
    rendered,
    files: servedCertificateFiles(desired),
  };
}
