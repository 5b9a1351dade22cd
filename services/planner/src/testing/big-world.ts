import { Planner } from '../core/planner.ts';
import * as f from './fixtures.ts';

/** A planner holding `services` Services with a 10-endpoint slice and one Ingress each, for appliance `lb`, planned once. */
export function bigWorld(services: number): Planner {
  const p = new Planner(f.fleet([{ name: 'c1' }], [f.appliance('lb', 'haproxy')]));
  p.applyEvent(f.added('c1', f.ingressClass('portolan', 'portolan.dev/ingress-controller'))[0]!);
  for (let i = 0; i < services; i++) {
    const eps: f.Ep[] = Array.from({ length: 10 }, (_, j) => [`10.${(i >> 8) & 255}.${i & 255}.${j + 1}`]);
    for (const e of f.added(
      'c1',
      f.service(`svc-${i}`, [['http', 80]]),
      f.slice(`svc-${i}-a`, `svc-${i}`, 'http', 8080, eps),
      f.ingress({ name: `ing-${i}`, rules: [f.rule(`h${i}.example.com`, ['/', 'Prefix', `svc-${i}`, 'http'])] }),
    ))
      p.applyEvent(e);
  }
  p.planDirty();
  return p;
}
