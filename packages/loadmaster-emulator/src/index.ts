// Protocol-faithful Kemp LoadMaster REST emulator (v1 XML and v2 JSON APIs over one state).
export {
  startLoadMasterEmulator,
  type LoadMasterEmulator,
  type LoadMasterEmulatorOptions,
} from './start-loadmaster-emulator.ts';
export type { LmCallRecord, LmWriteRecord } from './adapters/emulator-handler.ts';
export type { LmState, LmVirtualService, LmRealServer, LmRule, LmCertificate } from './core/lm-state.ts';
export { LmStore } from './core/lm-store.ts';
export type { LmHttpRequest, LmRouteResult } from './core/rule-match.ts';
export type { LmExchange, LmHeaderLine } from './core/header-rules.ts';
