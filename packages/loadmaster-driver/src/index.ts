// Kemp LoadMaster driver: Service mode and Ingress mode, as LoadMaster documents them, over the v2 JSON API.
export { LoadMasterDriver, LoadMasterReadBackError, type LoadMasterDriverOptions } from './loadmaster-driver.ts';
export { createLoadMasterDriver, LoadMasterConfigError } from './create-loadmaster-driver.ts';
export {
  LoadMasterClient,
  LoadMasterTransportError,
  type LoadMasterCredentials,
  type LoadMasterReply,
} from './adapters/loadmaster-client.ts';
export { renderVendorState, certificateName, type LmRenderConfig } from './core/render-vendor-state.ts';
export { diffVendorState } from './core/diff-vendor-state.ts';
export { ownerMark, parseOwnerMark, isOwnedBy, type OwnerMark, type OwnedKind } from './core/owner-mark.ts';
export { routePattern } from './core/route-patterns.ts';
export { LoadMasterRouteRefusedError } from './core/route-refused.ts';
export type * from './core/lm-vendor-state.ts';
export { CallThrottle } from './adapters/call-throttle.ts';
