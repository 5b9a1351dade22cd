// The site network on its own: processes in a site's namespace reach each other by address; a cut drops every packet
// between the site and the rest (the root namespace included) without resetting a connection, except to the external
// address; healing lets the open connection carry on. Skipped where namespaces cannot be made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { once } from 'node:events';
import { execFileSync } from 'node:child_process';
import { freePort } from './process-control.ts';
import { createSiteNetwork, siteNetworkAvailable, type SiteName, type SiteNetwork } from './site-network.ts';

const available = await siteNetworkAvailable();
const skip = available.ok ? false : `network namespaces are not available here: ${available.reason}`;

/** Runs a Node script inside `site`'s namespace; resolves with its first line of output. */
function inSite(network: SiteNetwork, site: SiteName, script: string): { child: ChildProcess; line: Promise<string> } {
  const [cmd, ...prefix] = network.sites[site].exec;
  const child = spawn(cmd!, [...prefix, process.execPath, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = new Promise<string>((resolve) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', () => resolve(out.trim()));
  });
  return { child, line };
}

/** `connected`, `timeout` (nothing came back within `ms`) or `error <code>`, from a connection attempt in `site`. */
function connectFrom(network: SiteNetwork, site: SiteName, host: string, port: number, ms = 1500): Promise<string> {
  const script = `const s = require('net').connect({ host: '${host}', port: ${port} });
setTimeout(() => { console.log('timeout'); process.exit(0); }, ${ms});
s.on('connect', () => { console.log('connected'); process.exit(0); });
s.on('error', (e) => { console.log('error ' + e.code); process.exit(0); });`;
  return inSite(network, site, script).line;
}

/** The same from the root namespace (this process). */
function connectHere(host: string, port: number, ms = 1500): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (r: string): void => {
      s.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done('timeout'), ms);
    s.on('connect', () => (clearTimeout(timer), done('connected')));
    s.on('error', (e: NodeJS.ErrnoException) => (clearTimeout(timer), done(`error ${e.code}`)));
  });
}

/** Resolves with the next data on `socket`, or `null` when none came within `ms`; rejects on close or error. */
function nextData(socket: net.Socket, ms: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (cleanup(), resolve(null)), ms);
    const onData = (d: Buffer): void => (cleanup(), resolve(d.toString()));
    const onEnd = (): void => (cleanup(), reject(new assert.AssertionError({ message: 'the connection was closed' })));
    const cleanup = (): void => {
      clearTimeout(timer);
      socket.off('data', onData).off('close', onEnd).off('error', onEnd);
    };
    socket.on('data', onData).on('close', onEnd).on('error', onEnd);
  });
}

test(
  'a cut site is unreachable both ways except from the external address; healing resumes open connections',
  { skip },
  async () => {
    const network = await createSiteNetwork(await freePort());
    const children: ChildProcess[] = [];
    const outside = net.createServer((c) => c.pipe(c));
    try {
      const bPort = await freePort();
      const server = inSite(
        network,
        'b',
        `require('net').createServer((c) => c.pipe(c))
  .listen(${bPort}, '${network.sites.b.address}', () => console.log('ready'));`,
      );
      children.push(server.child);
      assert.equal(await server.line, 'ready');
      const outsidePort = await freePort();
      outside.listen(outsidePort, '0.0.0.0');
      await once(outside, 'listening');
      const b = network.sites.b.address;

      assert.equal(await connectFrom(network, 'a', b, bPort), 'connected');
      assert.equal(await connectHere(b, bPort), 'connected');
      const open = net.connect({ host: b, port: bPort });
      await once(open, 'connect');
      open.write('before');
      assert.equal(await nextData(open, 2000), 'before');

      await network.cut('b');
      assert.equal(await connectFrom(network, 'a', b, bPort), 'timeout', 'a reaches b while b is cut');
      assert.equal(await connectFrom(network, 'c', b, bPort), 'timeout', 'c reaches b while b is cut');
      assert.equal(await connectHere(b, bPort), 'timeout', 'the root namespace reaches b while b is cut');
      assert.equal(await connectFrom(network, 'b', network.hostAddress, outsidePort), 'timeout', 'b reaches the host');
      assert.equal(await connectFrom(network, 'b', network.externalAddress, outsidePort), 'connected');
      assert.equal(await connectFrom(network, 'a', network.sites.c.address, 9, 1500), 'error ECONNREFUSED');
      open.write('during');
      assert.equal(await nextData(open, 1500), null, 'data crossed the cut');

      await network.heal('b');
      assert.equal(await nextData(open, 10_000), 'during', 'the open connection did not carry on after healing');
      assert.equal(await connectFrom(network, 'a', b, bPort), 'connected');
      assert.equal(await connectHere(b, bPort), 'connected');
      open.destroy();
    } finally {
      for (const c of children) c.kill('SIGKILL');
      outside.close();
      await network.close();
    }
    const left = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
    assert.ok(!left.includes(network.sites.a.namespace), `namespaces left behind:\n${left}`);
  },
);
