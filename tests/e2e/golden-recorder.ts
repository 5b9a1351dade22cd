import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadFleetConfig } from '@portolan/fleet-config';
import { encodeGoldenHistory, recordGoldenHistory } from '@portolan/planner';
import type { Pipeline } from './pipeline-harness.ts';

/** Where golden histories live (replayed by tests/golden-histories.test.ts). */
export const GOLDEN_DIR = path.resolve(import.meta.dirname, '..', 'golden');

/**
 * With PORTOLAN_RECORD_GOLDEN=1, writes the pipeline's archive and snapshot hashes as `tests/golden/<name>.json.gz`:
 * run it when a planning change is deliberate, and review the new file with the change.
 */
export async function recordGoldenIfAsked(p: Pipeline, name: string): Promise<void> {
  if (process.env.PORTOLAN_RECORD_GOLDEN !== '1') return;
  const { config } = await loadFleetConfig(p.fleetConfig);
  const history = await recordGoldenHistory(p.db, name, config);
  writeFileSync(path.join(GOLDEN_DIR, `${name}.json.gz`), encodeGoldenHistory(history));
  process.stdout.write(
    `# recorded golden history ${name}: ${history.events.length} events, ${history.snapshots.length} snapshots\n`,
  );
}
