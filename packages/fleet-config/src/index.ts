export {
  fleetConfigSchema,
  type FleetConfig,
  type ClusterConfig,
  type ApplianceConfig,
  type ConsoleConfig,
} from './schema.ts';
export { parseFleetConfig, loadFleetConfig, FleetConfigError, type LoadedFleetConfig } from './load-fleet-config.ts';
export { sentinelUrl, type SentinelAddress } from './engine-endpoints.ts';
