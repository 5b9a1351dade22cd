// Test helpers of the simulator for other workspaces' tests (`@portolan/kube-sim/testing`): a TCP proxy that counts
// and cuts connections, and a small HTTP client for the API. Never part of the simulator's runtime.
export { startFaultProxy, type FaultProxy } from './fault-proxy.ts';
export {
  call,
  openWatch,
  type OpenWatch,
  type RequestOptions,
  type SimResponse,
  type WatchLine,
} from './sim-client.ts';
