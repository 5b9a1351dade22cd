import type { JsonObject, ListenAddress, Monitor, Persistence } from '@portolan/desired-state';
import {
  loadmasterCheckSchema,
  loadmasterMonitor,
  loadmasterPersistence,
  loadmasterPersistenceSchema,
  neutralMonitor,
  neutralMonitorSchema,
  neutralPersistence,
  neutralPersistenceSchema,
  vtmMonitor,
  vtmMonitorSchema,
  vtmPersistence,
  vtmPersistenceSchema,
  vtmPoolCustomizationSchema,
  vtmVirtualServerCustomizationSchema,
} from './annotation-schemas.ts';
import {
  AnnotationIssues,
  readBool,
  readIp,
  readJson,
  readPort,
  readRaw,
  readScript,
  readWord,
  type AnnotationValue,
} from './annotation-values.ts';
import type { ApplianceProfile } from './appliance-profile.ts';
import type { Issue } from './issue.ts';

/** The per-Ingress settings the annotations of the appliance's driver family ask for. */
export interface IngressOptions {
  readonly address: ListenAddress;
  /** Explicit bind port; null = the default (HTTP, or HTTPS when the Ingress has a TLS section). */
  readonly port: number | null;
  readonly sslRedirect: boolean;
  readonly passthrough: boolean;
  readonly tlsToBackend: boolean;
  /** Only what was asked for; the driver default (vTM TCP connect) is applied at assembly. */
  readonly monitor: Monitor | null;
  readonly persistence: Persistence | null;
  readonly poolCustomization: JsonObject | null;
  readonly vsCustomization: JsonObject | null;
  readonly requestScript: string | null;
  readonly responseScript: string | null;
  readonly letsEncrypt: boolean;
}

/** Options plus what was wrong with them: errors reject the Ingress, warnings are reported and the setting ignored. */
export interface OptionsReading {
  readonly options: IngressOptions;
  readonly errors: readonly Issue[];
  readonly warnings: readonly Issue[];
}

/** The shape of the Ingress that the rules depend on. */
export interface IngressShape {
  readonly hasTls: boolean;
  readonly hasRules: boolean;
}

/** The vTM integration's annotation names, with every spelling its documented table and prose use. */
export const VTM_ANNOTATIONS = {
  ipAddress: ['vtm.pulsesecure.net/ip-address'],
  sharedIpAddress: ['vtm.pulsesecure.net/shared-ip-address', 'vtm.pulsesecure.net/shared-ipaddress'],
  port: ['vtm.pulsesecure.net/port'],
  sslRedirect: ['ingress.kubernetes.io/ssl-redirect', 'vtm.pulsesecure.net/ssl-redirect'],
  sslPassthrough: ['ingress.kubernetes.io/ssl-passthrough', 'ingress.kubernetes.io/sslpassthrough'],
  reEncrypt: ['vtm.pulsesecure.net/re-encrypt'],
  monitor: ['vtm.pulsesecure.net/monitor'],
  persistence: ['vtm.pulsesecure.net/persistence'],
  poolCustomization: ['vtm.pulsesecure.net/pool-customization', 'vtm.pulsesecure.net/poolcustomization'],
  virtualServerCustomization: ['vtm.pulsesecure.net/virtualserver-customization'],
  requestTrafficScript: ['vtm.pulsesecure.net/request-trafficscript', 'vtm.pulsesecure.net/requesttrafficscript'],
  responseTrafficScript: ['vtm.pulsesecure.net/response-trafficscript', 'vtm.pulsesecure.net/responsetrafficscript'],
  useLetsEncrypt: ['vtm.pulsesecure.net/use-lets-encrypt', 'vtm.pulsesecure.net/use-letsencrypt'],
} as const;

/** The neutral set HAProxy answers (documented in ANNOTATIONS.md). */
export const NEUTRAL_ANNOTATIONS = {
  sslRedirect: ['portolan.dev/ssl-redirect'],
  sslPassthrough: ['portolan.dev/ssl-passthrough'],
  backendProtocol: ['portolan.dev/backend-protocol'],
  monitor: ['portolan.dev/monitor'],
  persistence: ['portolan.dev/persistence'],
  listenPort: ['portolan.dev/listen-port'],
} as const;

/** LoadMaster Ingress mode: Kemp's `kemp.ax/*` names and Portolan's `loadmaster.portolan.dev/*` additions. */
export const LOADMASTER_ANNOTATIONS = {
  vsIp: ['kemp.ax/vsip'],
  vsPort: ['kemp.ax/vsport'],
  vsProt: ['kemp.ax/vsprot'],
  sharedVs: ['loadmaster.portolan.dev/shared-vs'],
  sslRedirect: ['loadmaster.portolan.dev/ssl-redirect'],
  sslPassthrough: ['loadmaster.portolan.dev/ssl-passthrough'],
  sslReencrypt: ['loadmaster.portolan.dev/ssl-reencrypt'],
  check: ['loadmaster.portolan.dev/check'],
  persistence: ['loadmaster.portolan.dev/persistence'],
} as const;

const NONE: IngressOptions = {
  address: { kind: 'default' },
  port: null,
  sslRedirect: false,
  passthrough: false,
  tlsToBackend: false,
  monitor: null,
  persistence: null,
  poolCustomization: null,
  vsCustomization: null,
  requestScript: null,
  responseScript: null,
  letsEncrypt: false,
};

/** Reads the Ingress annotations of the appliance's driver family and applies the listener rules. */
export function readIngressOptions(
  annotations: Readonly<Record<string, string>>,
  profile: ApplianceProfile,
  shape: IngressShape,
): OptionsReading {
  const issues = new AnnotationIssues();
  const raw =
    profile.driver === 'vtm'
      ? readVtm(annotations, profile, issues)
      : profile.driver === 'loadmaster'
        ? readLoadmaster(annotations, profile, issues)
        : readNeutral(annotations, issues);
  const options = withSslRedirectDefault(applyListenerRules(raw, profile, shape, issues), annotations, profile, shape);
  return { options, errors: issues.errors, warnings: issues.warnings };
}

/**
 * The appliance's ssl-redirect default, for an Ingress whose annotations leave it unset. It applies only where a
 * redirect can be made (a TLS section, bound off the HTTP port, not passthrough), so a default never turns into
 * the warnings and errors an explicit annotation gets.
 */
function withSslRedirectDefault(
  o: IngressOptions,
  annotations: Readonly<Record<string, string>>,
  profile: ApplianceProfile,
  shape: IngressShape,
): IngressOptions {
  if (!profile.sslRedirectDefault || o.sslRedirect || !shape.hasTls || o.passthrough) return o;
  if (readRaw(annotations, NEUTRAL_ANNOTATIONS.sslRedirect).kind !== 'absent') return o;
  return (o.port ?? profile.httpsPort) === profile.httpPort ? o : { ...o, sslRedirect: true };
}

function readVtm(
  a: Readonly<Record<string, string>>,
  profile: ApplianceProfile,
  issues: AnnotationIssues,
): IngressOptions {
  const N = VTM_ANNOTATIONS;
  const address = readVtmAddress(a, profile, issues);
  const options = {
    ...NONE,
    address,
    port: issues.opt(readPort(a, N.port)),
    sslRedirect: issues.take(readBool(a, N.sslRedirect), false),
    passthrough: issues.take(readBool(a, N.sslPassthrough), false),
    tlsToBackend: issues.take(readBool(a, N.reEncrypt), false),
    monitor: mapped(issues, readJson(a, N.monitor, vtmMonitorSchema), vtmMonitor),
    persistence: mappedOrError(
      issues,
      readJson(a, N.persistence, vtmPersistenceSchema),
      vtmPersistence,
      N.persistence[0],
    ),
    letsEncrypt: issues.take(readBool(a, N.useLetsEncrypt), false),
  };
  return { ...options, ...readVtmExtensions(a, profile, issues, address.kind !== 'dedicated') };
}

/** The listen address a vTM Ingress asks for (dedicated, shared, or the appliance's default traffic IP group). */
function readVtmAddress(
  a: Readonly<Record<string, string>>,
  profile: ApplianceProfile,
  issues: AnnotationIssues,
): ListenAddress {
  const N = VTM_ANNOTATIONS;
  const ip = issues.opt(readIp(a, N.ipAddress));
  const shared = issues.opt(readIp(a, N.sharedIpAddress));
  if (ip !== null && shared !== null)
    issues.error('ConflictingAnnotations', `${N.ipAddress[0]} and ${N.sharedIpAddress[0]} cannot both be set`);
  const address: ListenAddress =
    ip !== null ? { kind: 'dedicated', ip } : shared !== null ? { kind: 'shared', ip: shared } : { kind: 'default' };
  if (address.kind === 'default' && !profile.hasDefaultAddress)
    issues.error(
      'NoDefaultTrafficIpGroup',
      `no ${N.ipAddress[0]} or ${N.sharedIpAddress[0]}, and appliance ${profile.name} has no default traffic IP group`,
    );
  return address;
}

/**
 * The customizations and TrafficScript of a vTM Ingress, where the appliance enables them; a shared virtual server
 * takes none (the integration's rule). Read in this order, which is the order of their issues.
 */
function readVtmExtensions(
  a: Readonly<Record<string, string>>,
  profile: ApplianceProfile,
  issues: AnnotationIssues,
  sharedLike: boolean,
): Pick<IngressOptions, 'poolCustomization' | 'vsCustomization' | 'requestScript' | 'responseScript'> {
  const N = VTM_ANNOTATIONS;
  const custom = gated(
    a,
    [...N.poolCustomization, ...N.virtualServerCustomization],
    profile.enableCustomizations,
    issues,
    'CustomizationsDisabled',
    'enableCustomizations',
  );
  const scripts = gated(
    a,
    [...N.requestTrafficScript, ...N.responseTrafficScript],
    profile.enableTrafficScript,
    issues,
    'TrafficScriptDisabled',
    'enableTrafficScript',
  );
  let vsCustomization = custom
    ? issues.opt(readJson(a, N.virtualServerCustomization, vtmVirtualServerCustomizationSchema))
    : null;
  let requestScript = scripts ? issues.opt(readScript(a, N.requestTrafficScript)) : null;
  let responseScript = scripts ? issues.opt(readScript(a, N.responseTrafficScript)) : null;
  if (sharedLike && vsCustomization !== null) {
    issues.warn(
      'CustomizationOnSharedAddress',
      `${N.virtualServerCustomization[0]} is not supported on a shared virtual server; ignored`,
    );
    vsCustomization = null;
  }
  if (sharedLike && (requestScript !== null || responseScript !== null)) {
    issues.warn(
      'TrafficScriptOnSharedAddress',
      'request/response TrafficScript is not supported on a shared virtual server; ignored',
    );
    requestScript = null;
    responseScript = null;
  }
  return {
    poolCustomization: custom ? issues.opt(readJson(a, N.poolCustomization, vtmPoolCustomizationSchema)) : null,
    vsCustomization,
    requestScript,
    responseScript,
  };
}

function readNeutral(a: Readonly<Record<string, string>>, issues: AnnotationIssues): IngressOptions {
  const N = NEUTRAL_ANNOTATIONS;
  return {
    ...NONE,
    port: issues.opt(readPort(a, N.listenPort)),
    sslRedirect: issues.take(readBool(a, N.sslRedirect), false),
    passthrough: issues.take(readBool(a, N.sslPassthrough), false),
    tlsToBackend: issues.take(readWord(a, N.backendProtocol, ['http', 'https']), 'http') === 'https',
    monitor: mapped(issues, readJson(a, N.monitor, neutralMonitorSchema), neutralMonitor),
    persistence: mappedOrError(
      issues,
      readJson(a, N.persistence, neutralPersistenceSchema),
      neutralPersistence,
      N.persistence[0],
    ),
  };
}

function readLoadmaster(
  a: Readonly<Record<string, string>>,
  profile: ApplianceProfile,
  issues: AnnotationIssues,
): IngressOptions {
  const N = LOADMASTER_ANNOTATIONS;
  const ip = issues.opt(readIp(a, N.vsIp));
  const shared = issues.take(readBool(a, N.sharedVs), false);
  if (issues.take(readWord(a, N.vsProt, ['tcp', 'udp']), 'tcp') === 'udp')
    issues.error('UnsupportedProtocol', `${N.vsProt[0]}: udp virtual services cannot carry HTTP Ingress traffic`);
  if (shared && ip === null) issues.error('InvalidAnnotation', `${N.sharedVs[0]} needs ${N.vsIp[0]}`);
  if (ip === null && !profile.hasDefaultAddress)
    issues.error(
      'NoDefaultAddress',
      `no ${N.vsIp[0]}, and appliance ${profile.name} has no default virtual service address`,
    );
  return {
    ...NONE,
    address: ip === null ? { kind: 'default' } : shared ? { kind: 'shared', ip } : { kind: 'dedicated', ip },
    port: issues.opt(readPort(a, N.vsPort)),
    sslRedirect: issues.take(readBool(a, N.sslRedirect), false),
    passthrough: issues.take(readBool(a, N.sslPassthrough), false),
    tlsToBackend: issues.take(readBool(a, N.sslReencrypt), false),
    monitor: mapped(issues, readJson(a, N.check, loadmasterCheckSchema), loadmasterMonitor),
    persistence: mappedOrError(
      issues,
      readJson(a, N.persistence, loadmasterPersistenceSchema),
      loadmasterPersistence,
      N.persistence[0],
    ),
  };
}

/**
 * Rules that hold for every driver family (passthrough needs a bare default backend) and vTM's documented rules for a
 * shared address (the default address counts as shared: several Ingresses use it).
 */
function applyListenerRules(
  o: IngressOptions,
  profile: ApplianceProfile,
  shape: IngressShape,
  issues: AnnotationIssues,
): IngressOptions {
  let options = o;
  const vtmRules = profile.sharedRules === 'vtm';
  const sharedLike = options.address.kind !== 'dedicated';
  const port = options.port ?? (shape.hasTls || options.passthrough ? profile.httpsPort : profile.httpPort);
  if (options.passthrough && (shape.hasTls || shape.hasRules))
    issues.error(
      'PassthroughWithTlsOrRules',
      'ssl-passthrough cannot be combined with a TLS section or rules: use a defaultBackend only',
    );
  if (options.passthrough && vtmRules && sharedLike)
    issues.error(
      'PassthroughOnSharedAddress',
      'ssl-passthrough cannot be used on a shared address: request routing needs to read the HTTP payload',
    );
  if (options.sslRedirect && !shape.hasTls) {
    issues.warn('SslRedirectWithoutTls', 'ssl-redirect needs a TLS section; ignored');
    options = { ...options, sslRedirect: false };
  }
  if (options.sslRedirect && vtmRules && sharedLike && port !== 443)
    issues.error('SslRedirectNeedsPort443', `ssl-redirect on a shared address needs bind port 443, not ${port}`);
  if (options.sslRedirect && port === profile.httpPort)
    issues.error(
      'SslRedirectPortConflict',
      `ssl-redirect needs port ${profile.httpPort} for the redirect, but the Ingress binds it`,
    );
  if (options.letsEncrypt && !shape.hasTls) {
    issues.warn('LetsEncryptWithoutTls', 'use-lets-encrypt needs a TLS section naming the Secret to create; ignored');
    options = { ...options, letsEncrypt: false };
  }
  return options;
}

function mapped<T>(issues: AnnotationIssues, v: AnnotationValue<JsonObject>, f: (json: JsonObject) => T): T | null {
  const json = issues.opt(v);
  return json === null ? null : f(json);
}

function mappedOrError<T extends object>(
  issues: AnnotationIssues,
  v: AnnotationValue<JsonObject>,
  f: (json: JsonObject) => T | { error: string },
  name: string,
): T | null {
  const out = mapped(issues, v, f);
  if (out !== null && 'error' in out) {
    issues.error('InvalidAnnotationJson', `${name}: ${out.error}`);
    return null;
  }
  return out;
}

/** Whether profile-gated annotations may be read; when present but disabled, warns once and says no. */
function gated(
  a: Readonly<Record<string, string>>,
  names: readonly string[],
  enabled: boolean,
  issues: AnnotationIssues,
  reason: string,
  setting: string,
): boolean {
  const present = names.filter((n) => readRaw(a, [n]).kind !== 'absent');
  if (present.length > 0 && !enabled)
    issues.warn(reason, `${present.join(', ')} ignored: the appliance profile does not set ${setting}`);
  return enabled;
}
