import type { Monitor, Pool } from '@portolan/desired-state';
import { ownerNote } from '@portolan/appliance-driver';
import type { ServerSlot } from './haproxy-bundle.ts';
import type { BackendMode } from './haproxy-names.ts';
import { hostPort, quoteWord, section, timeValue } from './config-text.ts';

/**
 * Renders one backend: balancing, persistence, health checks, TLS to members, and one `server` line per slot.
 *
 * Server lines always read `server <slot> <addr>:<port> <enabled|disabled> weight <w>[ <static options>]`:
 * `config-skeleton.ts` relies on that shape to tell runtime-changeable slot contents from structure.
 */
export function renderBackend(
  name: string,
  mode: BackendMode,
  pool: Pool,
  slots: readonly ServerSlot[],
  appliance: string,
): string {
  const cookie = mode === 'http' && pool.persistence?.type === 'cookie' ? cookieName(pool.persistence.cookie) : null;
  const lines = [
    `# ${ownerNote(appliance, `pool:${pool.name}`)}`,
    `mode ${mode}`,
    ...balanceLines(mode, pool),
    ...(cookie === null ? [] : [`cookie ${cookie} insert indirect nocache`]),
    ...(pool.monitor === null ? [] : monitorLines(pool.monitor)),
    ...defaultServerLine(pool),
    ...slots.map((slot) => serverLine(slot, cookie !== null)),
  ];
  return section(`backend ${name}`, lines);
}

function balanceLines(mode: BackendMode, pool: Pool): string[] {
  const sticky = pool.persistence?.type === 'source-ip' || (mode === 'tcp' && pool.persistence !== null);
  // Consistent hashing keeps weights dynamic, so `set server … weight` keeps working at runtime.
  return sticky ? ['balance source', 'hash-type consistent'] : ['balance roundrobin'];
}

function monitorLines(monitor: Monitor): string[] {
  const lines: string[] = [];
  if (monitor.type !== 'tcp') {
    lines.push('option httpchk');
    const path = monitor.path.startsWith('/') ? monitor.path : '/';
    const send =
      monitor.hostHeader === ''
        ? `http-check send meth GET uri ${quoteWord(path)} ver HTTP/1.0`
        : `http-check send meth GET uri ${quoteWord(path)} ver HTTP/1.1 hdr Host ${quoteWord(monitor.hostHeader)}`;
    lines.push(send);
    if (monitor.expectStatus !== '') lines.push(`http-check expect rstatus ${quoteWord(monitor.expectStatus)}`);
  }
  lines.push(`timeout check ${timeValue(monitor.timeoutSeconds)}`);
  return lines;
}

function defaultServerLine(pool: Pool): string[] {
  const options: string[] = [];
  if (pool.monitor !== null) {
    options.push(
      'check',
      `inter ${timeValue(pool.monitor.intervalSeconds)}`,
      `fall ${Math.max(1, Math.round(pool.monitor.failures))}`,
      'rise 1',
    );
    if (pool.monitor.type === 'https' && !pool.tlsToBackend) options.push('check-ssl', 'verify none');
  }
  if (pool.tlsToBackend) options.push('ssl', 'verify none');
  return options.length === 0 ? [] : [`default-server ${options.join(' ')}`];
}

function serverLine(slot: ServerSlot, withCookie: boolean): string {
  const enabled = slot.state === 'maint' ? 'disabled' : 'enabled';
  const cookie = withCookie ? ` cookie ${slot.name}` : '';
  return `server ${slot.name} ${hostPort(slot.address, slot.port)} ${enabled} weight ${slot.weight}${cookie}`;
}

/** Cookie names are kept to a conservative token alphabet; anything else is replaced so the config stays valid. */
function cookieName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return cleaned === '' ? 'PORTOLAN' : cleaned;
}
