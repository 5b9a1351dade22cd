export { WATCHED_KINDS, watchedKind, type WatchedKind } from './watched-kinds.ts';
export {
  planWatchStreams,
  streamRequestPath,
  type WatchStream,
  type StreamRequest,
  type NamespaceScope,
} from './watch-streams.ts';
export { backoffDelayMs, watchTimeoutSeconds, WATCH_BACKOFF, type BackoffPolicy } from './backoff.ts';
export {
  initialStreamState,
  advanceStream,
  checkStreamClock,
  type StreamState,
  type StreamInput,
  type StreamStep,
  type StreamFailure,
  type StreamTiming,
} from './stream-state.ts';
export { ObjectLedger, type LedgerEntry, type ObservedObject, type ListItemChange } from './object-ledger.ts';
export { chunkListMarkerKeys, MARKER_FIXED_BYTES } from './list-marker-chunks.ts';
export {
  prepareObject,
  tombstoneBytes,
  metadataOf,
  type PreparedObject,
  type SealSecretData,
} from './prepare-object.ts';
export { encodeKubeEvent, type KubeEventShape } from './kube-event-encoding.ts';
export {
  kubeEventMessage,
  listMarkerMessages,
  heartbeatMessage,
  type SettledState,
  type OutboundMessage,
  type WatchEventType,
} from './bus-messages.ts';
export { kindFreshness, readiness, liveness, type KindFreshness } from './kind-freshness.ts';
export { checkServerVersion, MIN_KUBERNETES, type ServerVersionCheck } from './server-version.ts';
export { decodeWatchLine, decodeListPage, LineSplitter, type WatchLine, type ListPage } from './watch-line.ts';
export { heapBudgetStep, type HeapBudgetState, type HeapBudgetStep } from './heap-budget.ts';
