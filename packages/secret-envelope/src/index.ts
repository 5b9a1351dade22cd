export { loadFleetKey, fleetKeyFromBytes, FleetKeyError, type FleetKey } from './fleet-key.ts';
export {
  sealSecretData,
  openSealedData,
  fingerprintSecretData,
  SealError,
  type SealedData,
  type SealedSecretData,
} from './seal.ts';
export { inspectTlsData, type TlsMaterial } from './tls-material.ts';
