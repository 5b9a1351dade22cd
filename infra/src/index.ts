export { localStack, type LocalStack, type StackProfile } from './local-stack.ts';
export { stackConfig, stackEndpoints, type StackConfig, type StackEndpoints } from './stack-config.ts';
export { StackServiceError } from './errors.ts';
export { ensureBinaries, findBinary, stackBinaries, type SystemBinary } from './system-packages.ts';
export { haproxyPaths } from './services/haproxy.ts';
export { natsService } from './services/nats.ts';
export type { ServiceStatus } from './services/daemon-service.ts';
export { testStack, type TestStack } from './test-stack.ts';
export { portolanUp, portolanDown, type UpOptions, type UpResult, type UpHaReport } from './demo/portolan-up.ts';
export { upPlan, upPortSpan, haDemoAppliances, haSiteName, type UpPlan } from './demo/up-plan.ts';
export { DEMO_GATEWAY_ADDRESS, demoBackends, sampleManifests } from './demo/sample-manifests.ts';
export type { StackService } from './services/daemon-service.ts';
export { freePort, freePortRange, isAlive, waitFor } from './process-control.ts';
export {
  launchPipeline,
  stopPipeline,
  demoAppliers,
  kubectlBinary,
  type PipelineLaunchOptions,
  type DemoSite,
  type LaunchedPipeline,
  type ServicePlacement,
} from './demo/pipeline-launcher.ts';
export {
  demoLayout,
  defaultDemoPorts,
  demoCredentials,
  type DemoLayout,
  type DemoPorts,
  type DemoApplier,
} from './demo/demo-files.ts';
export {
  demoAppliances,
  demoCluster,
  demoFleetConfig,
  type DemoAppliance,
  type DemoFleetInputs,
  type DemoHaproxy,
} from './demo/demo-fleet-config.ts';
export { haStack, type HaStack } from './ha-stack.ts';
export {
  haStackConfig,
  haStackEndpoints,
  freeHaPorts,
  nodeHost,
  nodeSites,
  type HaStackConfig,
  type HaStackEndpoints,
  type NatsNodePorts,
} from './ha-stack-config.ts';
export {
  createSiteNetwork,
  removeOrphanedSiteNetworks,
  removeSiteNetwork,
  siteNetworkAvailable,
  siteNetworkLayout,
  siteNames,
  type Site,
  type SiteName,
  type SiteNetwork,
  type SitePlacement,
} from './site-network.ts';
