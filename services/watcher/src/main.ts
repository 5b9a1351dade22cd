// Composition root of the watcher process: `node services/watcher/src/main.ts --config <fleet.yaml> --cluster <name>
// [--health-port p] [--verbose]`. Stops on SIGINT/SIGTERM.
import { runWatcher, parseWatcherArgs, WatcherArgsError, watcherUsage } from './run-watcher.ts';

let args;
try {
  args = parseWatcherArgs(process.argv.slice(2));
} catch (e) {
  if (!(e instanceof WatcherArgsError)) throw e;
  process.stderr.write(`${e.message}\n\n${watcherUsage}\n`);
  process.exit(2);
}
const running = await runWatcher(args);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void running.stop().then(() => process.exit(0));
  });
}
