// A private network for the HA stack's sites, made of Linux network namespaces on one machine: a bridge in the root
// namespace and one namespace per site (`a`, `b`, and the witness `c`), each joined to the bridge by a veth pair and
// holding its own address on a private /24. Processes started through a site's `exec` prefix (`ip netns exec`) bind
// and connect from that address, so a site can be cut off by the network while its processes keep running.
//
// Cutting drops packets silently with traffic control, in both directions, without resetting a connection: an
// HTB qdisc on each end of the site's veth pair sends IPv4 packets between the site and the /24 to a class whose
// queue holds nothing (`pfifo limit 0`), so they are dropped as on a lost link; ARP still passes. Healing removes
// the qdiscs, and TCP's retransmissions carry on the connections that were open. The bridge's second address, the
// "external" one, is never cut: test-only processes that stand for the world outside the sites (the Kubernetes API,
// the appliances) listen there, so a cut-off site still reaches its appliance, as an old leader often does.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { SiteNetworkError } from './errors.ts';
import { isAlive } from './process-control.ts';

const run = promisify(execFile);

/** The sites: two that run Portolan and hold engine nodes, and a witness holding the third vote of each quorum. */
export const siteNames = ['a', 'b', 'c'] as const;
export type SiteName = (typeof siteNames)[number];

/** One site: its namespace, its address, and the command prefix that runs a program inside it (pid unchanged). */
export interface Site {
  readonly namespace: string;
  readonly address: string;
  readonly exec: readonly string[];
}

/** Where the sites are: enough to place processes in them (the HA stack's `sites` option). */
export interface SitePlacement {
  readonly sites: Readonly<Record<SiteName, Site>>;
  /** The sites' /24 in CIDR form (Postgres's pg_hba allows it). */
  readonly subnet: string;
  /** The bridge address that is never cut: listen here to be reachable from every site at all times. */
  readonly externalAddress: string;
}

/** A site network that exists until `close`. */
export interface SiteNetwork extends SitePlacement {
  readonly bridge: string;
  /** The root namespace's own address on the bridge (cut from a site like any other). */
  readonly hostAddress: string;
  /** Drops every packet between `site` and the rest of the /24 (except the external address), both directions. */
  cut(site: SiteName): Promise<void>;
  /** Undoes `cut`. */
  heal(site: SiteName): Promise<void>;
  /** Removes the namespaces, the veth pairs and the bridge (processes inside should be stopped first). */
  close(): Promise<void>;
}

/** The `ip` binary (iproute2). */
function ipBinary(): string {
  return ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'].find((p) => existsSync(p)) ?? 'ip';
}

function tcBinary(): string {
  return ['/usr/sbin/tc', '/sbin/tc', '/usr/bin/tc', '/bin/tc'].find((p) => existsSync(p)) ?? 'tc';
}

async function ip(args: readonly string[]): Promise<string> {
  return command(ipBinary(), args);
}

async function tc(args: readonly string[]): Promise<string> {
  return command(tcBinary(), args);
}

async function command(binary: string, args: readonly string[]): Promise<string> {
  try {
    return (await run(binary, [...args], { timeout: 10_000 })).stdout;
  } catch (cause) {
    const stderr = String((cause as { stderr?: string }).stderr ?? '').trim();
    throw new SiteNetworkError(`${binary} ${args.join(' ')} failed: ${stderr || String(cause)}`, { cause });
  }
}

/** Runs a removal; a thing already gone is fine. */
async function remove(runner: () => Promise<unknown>): Promise<void> {
  try {
    await runner();
  } catch (error) {
    const gone = /Cannot find device|No such file|does not exist|Cannot remove namespace/i;
    if (!(error instanceof SiteNetworkError) || !gone.test(error.message)) throw error;
  }
}

/** Whether namespaces, veth pairs and the HTB qdisc can be made here; when not, why (a container without NET_ADMIN). */
export async function siteNetworkAvailable(): Promise<{ readonly ok: true } | { readonly ok: false; reason: string }> {
  if (process.platform !== 'linux')
    return { ok: false, reason: `network namespaces need Linux, not ${process.platform}` };
  const probe = `ptlprobe${process.pid}`;
  try {
    await ip(['netns', 'add', probe]);
    try {
      await ip(['-n', probe, 'link', 'add', 'p0', 'type', 'veth', 'peer', 'name', 'p1']);
      await tc(['-n', probe, 'qdisc', 'add', 'dev', 'p0', 'root', 'handle', '1:', 'htb']);
      await tc(['-n', probe, 'class', 'add', 'dev', 'p0', 'parent', '1:', 'classid', '1:2', 'htb', 'rate', '1mbit']);
      await tc(['-n', probe, 'qdisc', 'add', 'dev', 'p0', 'parent', '1:2', 'handle', '2:', 'pfifo', 'limit', '0']);
    } finally {
      await remove(() => ip(['netns', 'del', probe]));
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Names and addresses of the network for `key` (a number unique to the stack, such as its first port). */
export function siteNetworkLayout(key: number): Omit<SiteNetwork, 'cut' | 'heal' | 'close'> {
  if (!Number.isInteger(key) || key < 0 || key > 65_535)
    throw new SiteNetworkError(`site network key ${key} is not a number from 0 to 65535`);
  const prefix = `10.${200 + (Math.floor(key / 256) % 50)}.${key % 256}`;
  const site = (name: SiteName, host: number): Site => {
    const namespace = `ptl${key}-${name}`;
    return { namespace, address: `${prefix}.${host}`, exec: [ipBinary(), 'netns', 'exec', namespace] };
  };
  return {
    bridge: `ptlbr${key}`,
    subnet: `${prefix}.0/24`,
    hostAddress: `${prefix}.1`,
    externalAddress: `${prefix}.254`,
    sites: { a: site('a', 11), b: site('b', 12), c: site('c', 13) },
  };
}

/** The root side of a site's veth pair (the other end is `site0` inside the namespace). */
const vethOf = (key: number, site: SiteName): string => `ptl${key}${site}`;
const insideVeth = 'site0';

/**
 * Makes the site network for `key`, after removing whatever a crashed earlier run left under the same names. Throws
 * a SiteNetworkError when the /24 is already in use on this machine.
 */
export async function createSiteNetwork(key: number): Promise<SiteNetwork> {
  const layout = siteNetworkLayout(key);
  await removeOrphanedSiteNetworks();
  await removeSiteNetwork(key);
  mkdirSync(OWNERS, { recursive: true });
  writeFileSync(path.join(OWNERS, String(key)), String(process.pid));
  const prefix = layout.subnet.replace(/0\/24$/, '');
  if ((await ip(['-4', '-o', 'addr', 'show'])).includes(` ${prefix}`))
    throw new SiteNetworkError(`${layout.subnet} is already in use on this machine; choose another key than ${key}`);
  try {
    await ip(['link', 'add', layout.bridge, 'type', 'bridge']);
    await ip(['addr', 'add', `${layout.hostAddress}/24`, 'dev', layout.bridge]);
    await ip(['addr', 'add', `${layout.externalAddress}/24`, 'dev', layout.bridge]);
    await ip(['link', 'set', layout.bridge, 'up']);
    for (const name of siteNames) await addSite(key, layout.bridge, name, layout.sites[name]);
  } catch (error) {
    await removeSiteNetwork(key);
    throw error;
  }
  return {
    ...layout,
    cut: (site) => cut(key, layout, site),
    heal: (site) => heal(key, layout, site),
    close: () => removeSiteNetwork(key),
  };
}

async function addSite(key: number, bridge: string, name: SiteName, site: Site): Promise<void> {
  const veth = vethOf(key, name);
  await ip(['netns', 'add', site.namespace]);
  await ip(['link', 'add', veth, 'type', 'veth', 'peer', 'name', insideVeth, 'netns', site.namespace]);
  await ip(['link', 'set', veth, 'master', bridge, 'up']);
  await ip(['-n', site.namespace, 'addr', 'add', `${site.address}/24`, 'dev', insideVeth]);
  await ip(['-n', site.namespace, 'link', 'set', insideVeth, 'up']);
  await ip(['-n', site.namespace, 'link', 'set', 'lo', 'up']);
}

/**
 * One direction of a cut, on the device whose egress carries it: IPv4 packets whose `field` (src or dst) is the
 * external address go straight out (the HTB qdisc's direct queue); the rest of the /24 goes to class 1:2, whose
 * queue holds nothing, so they are dropped; anything else (ARP, other networks) is untouched.
 */
async function dropOnEgress(
  namespace: readonly string[],
  dev: string,
  field: 'src' | 'dst',
  layout: SitePlacement,
): Promise<void> {
  const t = (args: readonly string[]): Promise<string> => tc([...namespace, ...args]);
  await t(['qdisc', 'replace', 'dev', dev, 'root', 'handle', '1:', 'htb']);
  await t(['class', 'add', 'dev', dev, 'parent', '1:', 'classid', '1:2', 'htb', 'rate', '1mbit']);
  await t(['qdisc', 'add', 'dev', dev, 'parent', '1:2', 'handle', '2:', 'pfifo', 'limit', '0']);
  const filter = (prio: string, address: string, flow: string): Promise<string> =>
    t(
      ['filter', 'add', 'dev', dev, 'parent', '1:', 'protocol', 'ip', 'prio', prio, 'u32', 'match', 'ip', field].concat(
        [address, 'flowid', flow],
      ),
    );
  await filter('1', `${layout.externalAddress}/32`, '1:');
  await filter('2', layout.subnet, '1:2');
}

async function cut(key: number, layout: SitePlacement, site: SiteName): Promise<void> {
  // Towards the site: the bridge's port; from the site: its own end of the pair.
  await dropOnEgress([], vethOf(key, site), 'src', layout);
  await dropOnEgress(['-n', layout.sites[site].namespace], insideVeth, 'dst', layout);
}

async function heal(key: number, layout: SitePlacement, site: SiteName): Promise<void> {
  const qdiscGone = /Cannot delete qdisc with handle of zero|Cannot find specified qdisc|Invalid handle/i;
  const del = async (args: string[]): Promise<void> => {
    try {
      await tc(args);
    } catch (error) {
      // Not cut: nothing to remove.
      if (!(error instanceof SiteNetworkError) || !qdiscGone.test(error.message)) throw error;
    }
  };
  await del(['qdisc', 'del', 'dev', vethOf(key, site), 'root']);
  await del(['-n', layout.sites[site].namespace, 'qdisc', 'del', 'dev', insideVeth, 'root']);
}

/** Where each network's owner notes its pid, so a later run can tell a network whose owner crashed. */
const OWNERS = path.join(os.tmpdir(), 'portolan-site-networks');

/** Removes every site network whose owner is gone (a run killed before its `close`). */
export async function removeOrphanedSiteNetworks(): Promise<void> {
  const owned = existsSync(OWNERS) ? readdirSync(OWNERS) : [];
  const names = `${await ip(['netns', 'list'])}\n${await ip(['-o', 'link', 'show'])}`;
  const keys = new Set([...names.matchAll(/\bptl(?:br)?(\d+)(?:-[abc]\b|[abc]@|:)/g)].map((m) => Number(m[1])));
  for (const key of [...keys, ...owned.map(Number)]) {
    const file = path.join(OWNERS, String(key));
    const owner = existsSync(file) ? Number(readFileSync(file, 'utf8')) : null;
    if (owner === null || !isAlive(owner)) await removeSiteNetwork(key);
  }
}

/** Removes the network for `key` and anything left of it: the sites' veth pairs and namespaces, then the bridge. */
export async function removeSiteNetwork(key: number): Promise<void> {
  const layout = siteNetworkLayout(key);
  const links = await ip(['-o', 'link', 'show']);
  for (const name of siteNames) {
    // Deleting one end removes the pair, even while a process still holds the namespace open.
    if (links.includes(` ${vethOf(key, name)}@`)) await remove(() => ip(['link', 'del', vethOf(key, name)]));
  }
  const namespaces = await ip(['netns', 'list']);
  for (const name of siteNames) {
    const ns = layout.sites[name].namespace;
    if (namespaces.split('\n').some((line) => line.split(' ')[0] === ns)) await remove(() => ip(['netns', 'del', ns]));
  }
  if (links.includes(` ${layout.bridge}:`)) await remove(() => ip(['link', 'del', layout.bridge]));
  rmSync(path.join(OWNERS, String(key)), { force: true });
}
