// Golden histories: archives recorded from real pipeline runs (and a 1k-Service churn recorded by
// tests/golden/record-churn.ts), replayed through today's planner. Every recorded snapshot hash must come out the
// same, so a change to planning output is always deliberate: re-record the histories with the change
// (PORTOLAN_RECORD_GOLDEN=1 on the recording tests, or the churn script) and review the new files with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeGoldenHistory, PLANNER_VERSION, replayGoldenHistory } from '@portolan/planner';

const dir = path.join(import.meta.dirname, 'golden');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json.gz'))
  .sort();

test('the recorded histories are all here', () => {
  assert.deepEqual(files, ['churn-1k.json.gz', 'everyday-operations.json.gz', 'hostile-input.json.gz']);
});

for (const file of files) {
  test(`golden history ${file}: every recorded snapshot hash is reproduced`, () => {
    const history = decodeGoldenHistory(readFileSync(path.join(dir, file)));
    assert.equal(
      history.plannerVersion,
      PLANNER_VERSION,
      `${file} was recorded by planner ${history.plannerVersion}: re-record it with this change`,
    );
    assert.ok(history.snapshots.length > 0 && history.events.length > 0);
    const mismatches = replayGoldenHistory(history);
    assert.deepEqual(
      mismatches.slice(0, 3),
      [],
      `${mismatches.length} of ${history.snapshots.length} snapshots differ (first shown); if the change is deliberate, re-record`,
    );
  });
}
