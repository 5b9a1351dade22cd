import type { Route, VirtualService } from '@portolan/desired-state';

/**
 * The frontend lines that find a request's wildcard host. With one label (Ingress) the wildcard of `a.b.c` is
 * `*.b.c` alone, one lookup. With any number of labels (Gateway API, `wildcardLabels: 'any'`) every wildcard suffix
 * of the request host could match, so there is one lookup per suffix length the listener's wildcard routes use,
 * longest first, each guarded so that a suffix never stands for the whole host (`*.c` does not match `c`). The
 * first lookup that finds a host with routes sets `txn.host_known` and closes the rest.
 */
export function wildcardLookupLines(vs: VirtualService, lookup: (open: string) => string[]): string[] {
  const open = 'if !routed !host_known';
  if (vs.wildcardLabels !== 'any')
    return [
      `http-request set-var(txn.suffix) var(txn.host),field(2,.,0) ${open}`,
      `http-request set-var(txn.wildcard) str(*.),concat(,txn.suffix,) ${open}`,
      ...lookup(open),
    ];
  const depths = wildcardDepths(vs.routes);
  if (depths.length === 0) return [];
  return [
    `http-request set-var(txn.dots) var(txn.host),${DOTS} ${open}`,
    ...depths.flatMap((n) => {
      const guarded = `${open} { var(txn.dots) -m int ge ${n} }`;
      return [
        `http-request set-var(txn.suffix) var(txn.host),field(-1,.,${n}) ${guarded}`,
        `http-request set-var(txn.wildcard) str(*.),concat(,txn.suffix,) ${guarded}`,
        ...lookup(guarded),
      ];
    }),
  ];
}

/** The `use_backend` lines of a passthrough listener's wildcard SNI map (keys are the suffixes, without `*.`). */
export function sniWildcardLines(vs: VirtualService, map: string): string[] {
  const sni = 'req.ssl_sni,lower';
  if (vs.wildcardLabels !== 'any') {
    const key = `${sni},field(2,.,0),map(${map})`;
    return [`use_backend %[${key}] if { ${key} -m found }`];
  }
  return wildcardDepths(vs.routes).map((n) => {
    const key = `${sni},field(-1,.,${n}),map(${map})`;
    return `use_backend %[${key}] if { ${key} -m found } { ${sni},${DOTS} -m int ge ${n} }`;
  });
}

/** The number of dots in a host name, as a converter chain. */
const DOTS = 'regsub([^.]+,,g),length';

/** The label counts of the routes' wildcard suffixes (`*.b.c` → 2), longest first. */
function wildcardDepths(routes: readonly Route[]): number[] {
  const depths = new Set<number>();
  for (const r of routes) if (r.host.startsWith('*.')) depths.add(r.host.split('.').length - 1);
  return [...depths].sort((a, b) => b - a);
}
