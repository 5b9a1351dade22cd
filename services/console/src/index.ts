// The audit console: an authenticated HTTP API under /api/v1 (OpenAPI at /api/v1/openapi.json) and the web UI.
export { startConsole, type ConsoleOptions, type RunningConsole } from './start-console.ts';
export { runConsole, signalled } from './run-console.ts';
export { parseRunConfig, ConsoleUsageError, consoleUsage, type ConsoleRunConfig } from './run-config.ts';
