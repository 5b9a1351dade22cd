// Composition root of the watcher process: `node services/watcher/src/main.ts --config <fleet.yaml> --cluster <name>
// [--health-port p] [--verbose]`. Stops on SIGINT/SIGTERM. It first replaces itself (same pid) by the tuned runtime
// (runtime-tuning.ts), which is why everything else is imported only afterwards.
import { execTunedWatcher, persistCompileCache } from './runtime-tuning.ts';

execTunedWatcher(import.meta.filename, process.argv.slice(2));
const { runWatcher, parseWatcherArgs, WatcherArgsError, watcherUsage } = await import('./run-watcher.ts');

let args;
try {
  args = parseWatcherArgs(process.argv.slice(2));
} catch (e) {
  if (!(e instanceof WatcherArgsError)) throw e;
  process.stderr.write(`${e.message}\n\n${watcherUsage}\n`);
  process.exit(2);
}
let running;
try {
  running = await runWatcher(args);
} catch (e) {
  if (!(e instanceof WatcherArgsError)) throw e;
  process.stderr.write(`portolan watch: ${e.message}\n`);
  process.exit(2);
}
persistCompileCache();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void running.stop().then(() => process.exit(0));
  });
}
