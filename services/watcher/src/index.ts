// Watcher: every Kubernetes change of one cluster onto JetStream, never silently stale.
export { ClusterWatcher, type ClusterWatcherOptions } from './cluster-watcher.ts';
export { StreamRunner } from './stream-runner.ts';
export { KubeApiClient, KubeApiError, type KubeEndpoint } from './adapters/kube-api-client.ts';
export { KubeEventRecorder, type InvolvedObject } from './adapters/kube-event-recorder.ts';
export { BusPublisher, type PublishTarget, type BusPublisherOptions } from './adapters/bus-publisher.ts';
export { natsConnectivity } from './adapters/nats-connectivity.ts';
export { JetStreamAckTarget, JetStreamPublishError } from './adapters/jetstream-ack-target.ts';
export { runWatcher, parseWatcherArgs, WatcherArgsError, watcherUsage, type WatcherArgs } from './run-watcher.ts';
export { execTunedWatcher, watcherMainPath, WATCHER_NODE_FLAGS } from './runtime-tuning.ts';
export * from './core/index.ts';
