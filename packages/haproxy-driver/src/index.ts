export { HaproxyDriver, type HaproxyDriverOptions, type HaproxyApplianceConfig } from './haproxy-driver.ts';
export { createHaproxyDriver } from './create-haproxy-driver.ts';
export type {
  HaproxyBundle,
  BundleFile,
  BackendSlots,
  ServerSlot,
  SlotState,
  MapContent,
  MapEntry,
  CertificateFile,
} from './core/haproxy-bundle.ts';
export { emptyBundle } from './core/haproxy-bundle.ts';
export { DEFAULT_SPARES, BRIDGES_FILE } from './core/spare-backends.ts';
export {
  renderHaproxyBundle,
  certificatePath,
  defaultRenderTuning,
  CONFIG_FILE,
  RUNTIME_SOCKET,
  SERVER_STATE_FILE,
  type HaproxyRenderOptions,
} from './core/render-haproxy-bundle.ts';
export { diffHaproxy, structuralChanges } from './core/diff-haproxy.ts';
export { fromOperation, toOperation, type HaproxyOperation } from './core/haproxy-operations.ts';
export { backendName, frontendName } from './core/haproxy-names.ts';
export type { ProcStatus, ProcEntry } from './core/parse-show-proc.ts';
export { HaproxyRuntimeClient, type HaproxyRuntimeClientOptions } from './adapters/haproxy-runtime-client.ts';
export {
  HaproxyMasterClient,
  type HaproxyMasterClientOptions,
  type ReloadOutcome,
} from './adapters/haproxy-master-client.ts';
export {
  startHaproxy,
  stopHaproxy,
  initialBundleFiles,
  type StartHaproxyOptions,
  type RunningHaproxy,
} from './adapters/start-haproxy.ts';
export { validateHaproxyConfig, type ConfigValidation } from './adapters/validate-haproxy-config.ts';
export { HaproxySocketError, HaproxyStartError, HaproxyProtocolError, HaproxyRouteRefusedError } from './errors.ts';
