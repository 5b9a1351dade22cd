// A mutant of the applier for the history checker's own test: loaded with `--import` (NODE_OPTIONS), it rewrites
// the applier's send step as the module is loaded so that the epoch check before an appliance write always says
// "current". Nothing in the repository changes; the process that imports this file runs the mutant. When the
// source no longer holds the line it replaces, the process fails at once (a mutation that silently did nothing
// would make the test that uses it prove nothing).
import { registerHooks } from 'node:module';

/** The module mutated and the line replaced: the epoch check the send awaits before its first write. */
const target = '/services/applier/src/apply-step.ts';
const original = 'const stale = r.staleEpoch ?? isEpochStale(leadership);';
const mutant = 'const stale = Promise.resolve(false); // mutant: the epoch check skipped';

registerHooks({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    if (!url.endsWith(target)) return loaded;
    const source = String(loaded.source);
    if (!source.includes(original)) {
      process.stderr.write(`mutation: ${target} no longer holds "${original}"\n`);
      process.exit(70);
    }
    process.stderr.write(`mutation: ${target}: the epoch check before a write is skipped\n`);
    return { ...loaded, source: source.replace(original, mutant) };
  },
});
