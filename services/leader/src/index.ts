// Leader monitor: reads every appliance group's lease and fencing epoch and serves them as metrics (main.ts).
export { createLeaderMetrics, type LeaderMetrics } from './leader-metrics.ts';
export { LeaderMonitor, type LeaderMonitorOptions } from './leader-monitor.ts';
export { parseRunConfig, LeaderUsageError, leaderUsage, type LeaderRunConfig } from './run-config.ts';
