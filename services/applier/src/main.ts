// Composition root: `node services/applier/src/main.ts --config <fleet.yaml> --appliance <name> --id <replica-id>
// [--health-port p]`. It first replaces itself (same pid) by the tuned runtime (runtime-tuning.ts), which is why the
// applier itself (applier-process.ts) is imported only afterwards.
import { execTuned, persistCompileCache } from '@portolan/telemetry';
import { APPLIER_TUNING } from './runtime-tuning.ts';

execTuned(APPLIER_TUNING, import.meta.filename, process.argv.slice(2));
await import('./applier-process.ts');
persistCompileCache();
