import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTimeSpec } from './time-spec.ts';
import { formatTable, listCell, truncateCell } from './text-table.ts';
import { progressLine } from './progress-bar.ts';
import { parseOutputFormat, renderReport } from './output-format.ts';

const now = new Date('2026-11-22T14:00:00.000Z');
const at = (t: string): string => {
  const r = parseTimeSpec(t, now);
  return r.ok ? r.at.toISOString() : `error: ${r.message}`;
};

test('parseTimeSpec: absolute, relative and epoch times; anything else is an error message', () => {
  assert.equal(at('2026-11-22T14:02:00Z'), '2026-11-22T14:02:00.000Z');
  assert.equal(at('2026-11-22T14:02:00+01:00'), '2026-11-22T13:02:00.000Z');
  assert.equal(at('now'), '2026-11-22T14:00:00.000Z');
  assert.equal(at('-15m'), '2026-11-22T13:45:00.000Z');
  assert.equal(at('2h'), '2026-11-22T12:00:00.000Z');
  assert.equal(at('1d ago'), '2026-11-21T14:00:00.000Z');
  assert.equal(at('1795356000000'), '2026-11-22T14:00:00.000Z');
  assert.match(at('last tuesday'), /^error: cannot read "last tuesday" as a time/);
  assert.match(at('2026-13-45'), /^error:/);
});

test('formatTable pads columns and trims trailing blanks; cells shorten visibly', () => {
  assert.equal(
    formatTable(
      ['A', 'LONG HEADER'],
      [
        ['x', ''],
        ['longer', 'y'],
      ],
    ),
    'A       LONG HEADER\nx\nlonger  y\n',
  );
  assert.equal(truncateCell('abcdef', 4), 'abc…');
  assert.equal(listCell(['a', 'b', 'c'], 2), 'a, b +1 more');
  assert.equal(listCell([], 2), '-');
});

test('progressLine shows done/total with a proportional bar', () => {
  assert.equal(progressLine('walking', 5, 10, 10), 'walking [#####-----]  5/10');
  assert.equal(progressLine('walking', 0, 0, 4), 'walking [####] 0/0');
});

test('output formats: table by default, json and yaml render the same data, others are refused', () => {
  assert.deepEqual(parseOutputFormat(undefined), { ok: true, format: 'table' });
  assert.deepEqual(parseOutputFormat('xml'), {
    ok: false,
    message: 'unknown output format "xml" (use table, json or yaml)',
  });
  const report = { appliance: 'edge', count: 2n, items: ['a'] };
  assert.equal(
    renderReport('json', report, () => 'T'),
    '{\n  "appliance": "edge",\n  "count": "2",\n  "items": [\n    "a"\n  ]\n}\n',
  );
  assert.equal(
    renderReport('yaml', report, () => 'T'),
    'appliance: edge\ncount: "2"\nitems:\n  - a\n',
  );
  assert.equal(
    renderReport('table', report, (r) => `table of ${r.appliance}`),
    'table of edge',
  );
});
