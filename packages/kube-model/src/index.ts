export type * from './objects.ts';
export { GATEWAY_KINDS, KUBE_KINDS, SERVICE_NAME_LABEL, LAST_APPLIED_ANNOTATION } from './objects.ts';
export { trimObject, type TrimResult } from './trim-object.ts';
export { objectKey, parseObjectKey, worldKeyString, compareWorldKeys, type WorldKey } from './world-key.ts';
export type { KubeWatchEvent, KubeListMarker, WatchEventType } from './events.ts';
export { entryHash, RunningDigest, type StateDigest } from './state-digest.ts';
