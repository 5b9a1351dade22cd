// Composition root of the planner: `node services/planner/src/main.ts --config <fleet.yaml> [--health-port p]
// [--verbose]`. It first replaces itself (same pid) by the tuned runtime (runtime-tuning.ts), which is why the
// planner itself (planner-process.ts) is imported only afterwards.
import { execTuned, persistCompileCache } from '@portolan/telemetry';
import { PLANNER_TUNING } from './runtime-tuning.ts';

execTuned(PLANNER_TUNING, import.meta.filename, process.argv.slice(2));
await import('./planner-process.ts');
persistCompileCache();
