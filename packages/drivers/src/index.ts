// Builds the driver an appliance entry of the fleet config names.
export { DriverRegistry, type DriverFactory } from './driver-registry.ts';
export { DriverLoadError } from './errors.ts';
