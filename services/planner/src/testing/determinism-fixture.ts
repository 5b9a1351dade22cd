import fc from 'fast-check';
import { historyArb, eventsOf, PROPERTY_FLEET } from './world-arbitrary.ts';
import * as f from './fixtures.ts';
import { Planner } from '../core/planner.ts';

/**
 * A fixed set of worlds (seeded histories plus a hand-made one full of time-zone and locale traps: offsets in
 * timestamps, a dotted capital I, IDN hosts) and the snapshot roots planned for them. Run in two processes
 * with different TZ/LANG, the roots must be identical.
 */
export function determinismRoots(): { roots: string[]; tz: number; locale: string } {
  const histories = fc.sample(historyArb, { seed: 20260101, numRuns: 25 });
  const roots: string[] = [];
  for (const steps of histories) {
    const p = new Planner(PROPERTY_FLEET);
    for (const e of eventsOf(steps)) p.applyEvent(e);
    p.planDirty();
    for (const a of p.appliances) roots.push(`${a}:${p.rootOf(a)}`);
  }
  const cfg = f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy')]);
  const p = new Planner(cfg);
  const events = f.added(
    'c1',
    f.ingressClass('portolan', 'portolan.dev/ingress-controller'),
    f.ingress({
      name: 'istanbul',
      created: '2026-03-29T01:30:00+03:00',
      rules: [f.rule('ISTANBUL.Example.com', ['/İ', 'Prefix', 'a', 80])],
    }),
    f.ingress({
      name: 'chatham',
      created: '2026-03-28T22:30:00.5Z',
      rules: [f.rule('istanbul.example.com', ['/', 'Prefix', 'b', 80])],
    }),
    f.ingress({
      name: 'idn',
      created: '2026-04-05T02:45:00+12:45',
      rules: [f.rule('ıi.bücher.example', ['/', 'Prefix', 'c', 80])],
    }),
  );
  for (const e of events) p.applyEvent(e);
  p.planDirty();
  roots.push(`lb:${p.rootOf('lb')}`);
  return { roots, tz: new Date(0).getTimezoneOffset(), locale: Intl.DateTimeFormat().resolvedOptions().locale };
}

if (process.argv[2] === '--print') process.stdout.write(JSON.stringify(determinismRoots()));
