// Protocol-faithful emulator of the vTM REST API 8.3 (library and standalone server).
export {
  startVtmEmulator,
  type VtmEmulator,
  type VtmEmulatorOptions,
  type WriteLogEntry,
  type RequestLogEntry,
  type EmulatorStateAccess,
} from './start-vtm-emulator.ts';
export type { StoredObject, PutOutcome, DeleteOutcome } from './core/vtm-config-store.ts';
export { SelfSignedCertError } from './adapters/self-signed-cert.ts';
export { StateFileError } from './adapters/state-file.ts';
export {
  DataPlaneListenError,
  type DataPlane,
  type DataPlaneOptions,
  type DataPlaneListener,
  type DataPlaneLogEntry,
} from './adapters/data-plane.ts';
export {
  runTrafficScript,
  TrafficScriptError,
  type ScriptRequest,
  type RuleOutcome,
} from './core/traffic-script-interpreter.ts';
export {
  newTransaction,
  type HttpTransaction,
  type HeaderFields,
  type TransactionInput,
} from './core/traffic-script-transaction.ts';
