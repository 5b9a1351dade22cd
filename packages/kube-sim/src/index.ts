// Kubernetes API simulator: a faithful-enough API server for kubectl, informers and fault tests.
export { startKubeSim, servedResourceTypes, type KubeSim, type KubeSimOptions } from './start-kube-sim.ts';
export { KubeSimRejectedError, UnknownKindError, type ObjectRef, ObjectsApi } from './server/objects-api.ts';
export { FaultController, type RequestFailure, type ApiVerb, type WatchTarget } from './server/fault-controller.ts';
export {
  createCertificateAuthority,
  issueServerCertificate,
  type PemKeyPair,
  type CertificateAuthority,
} from './server/certificates.ts';
export { StateFileError } from './server/state-file.ts';
export { TokenFileError } from './server/token-file.ts';
export type { RequestLogEntry } from './server/kube-sim-server.ts';
export type { ChangeLogEntry, ObjectStore } from './store/object-store.ts';
export type { PatchType } from './store/object-writer.ts';
export type { KubeObject, ObjectMeta, ResourceType } from './core/resource-types.ts';
export type { ApiError } from './core/api-error.ts';
export {
  authorize,
  serviceAccountUser,
  type RbacDecision,
  type RbacPolicy,
  type ResourceAttributes,
  type UserInfo,
} from './core/rbac-authorizer.ts';
