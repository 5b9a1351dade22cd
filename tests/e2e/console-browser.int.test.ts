// The audit console in a real browser (Debian's Chromium, driven by playwright-core) on a running pipeline with
// HAProxy: a viewer signs in by keyboard, finds no write controls (and the API refuses their approve), follows a
// kubectl change from the event stream into the timeline, opens its diff, explains the host and reads what was
// live; the operator signs in, rolls back with a reason and traffic returns to the earlier backend through
// HAProxy. Every page is photographed into test-artifacts/console/ (desktop 1280×800 and phone 390×844), the phone
// pages must not scroll sideways, and live updates must not shift the layout.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { headSnapshot } from './console-client.ts';
import { eventually } from './eventually.ts';
import { endpointSlice, ingress, ingressClass, namespace, service } from './manifests.ts';
import { startPipeline, type Pipeline } from './pipeline-harness.ts';

const ns = 'store';
const pods = { blue: ['127.0.42.1'], green: ['127.0.42.2'] };
const host = 'store.console.example.com';
const artifacts = path.resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'console');
const chromiumPath = '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `no ${chromiumPath}: npm test installs Debian's chromium`;
let p: Pipeline;
let browser: Browser;
let edge: string;
let blueSnapshot: string;

const store = (svc: 'blue' | 'green'): string =>
  ingress(ns, 'store', {
    className: 'portolan',
    rules: [{ host, paths: [{ path: '/', type: 'Prefix', service: svc }] }],
  });

before(async () => {
  if (skip !== false) return;
  mkdirSync(artifacts, { recursive: true });
  p = await startPipeline({
    appliances: [
      {
        name: 'edge',
        driver: 'haproxy',
        ingressControllers: ['portolan.dev/ingress-controller'],
        replicas: ['edge-a'],
      },
    ],
    echoAddresses: [...pods.blue, ...pods.green],
    console: true,
  });
  edge = p.appliance('edge');
  await p.apply(
    [
      namespace(ns),
      ingressClass('portolan', 'portolan.dev/ingress-controller'),
      ...(['blue', 'green'] as const).flatMap((s) => [
        service(ns, s, p.echoPort),
        endpointSlice(ns, s, pods[s], p.echoPort),
      ]),
      store('blue'),
    ].join(''),
  );
  await eventually('the store served by blue', async () => assert.equal(await who(), pods.blue[0]), { context });
  blueSnapshot = await headId();
  browser = await chromium.launch({
    executablePath: chromiumPath,
    // Background networking off: this machine's closed network refuses Chromium's own connections.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
after(async () => {
  await browser?.close();
  await p?.stop();
});

const context = (): string => p.diagnostics();

async function who(): Promise<string> {
  const r = await p.request(host, '/');
  return r.echo?.address ?? `status ${r.status}`;
}

/** The appliance's head snapshot id, from the console. */
const headId = (): Promise<string> => headSnapshot(p.console!.url, p.console!.viewerToken, edge);

/** A page at the desktop size that records layout shifts from its first paint on. */
async function openPage(width = 1280, height = 800): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height } });
  // Browser code as text: the tests are type-checked without the DOM library.
  await page.addInitScript(`
    window.__shift = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
  `);
  return page;
}

const shot = (page: Page, name: string): Promise<Buffer> =>
  page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });

/** Signs in with the keyboard only: Tab to the token field, type, Enter. */
async function signIn(page: Page, token: string, role: string): Promise<void> {
  await page.goto(p.console!.url);
  await page.getByTestId('login-form').waitFor();
  await page.getByTestId('token-input').focus();
  await page.keyboard.type(token);
  await page.keyboard.press('Enter');
  await assert.doesNotReject(page.getByTestId('session-user').filter({ hasText: role }).waitFor());
}

test(
  'a viewer signs in by keyboard, sees the fleet, and cannot approve (no control; the API says 403)',
  { skip },
  async () => {
    const page = await openPage();
    await page.goto(p.console!.url);
    await page.getByTestId('login-form').waitFor();
    await shot(page, '01-sign-in');
    await signIn(page, p.console!.viewerToken, 'viewer');
    await page.locator(`[data-testid=appliance-row][data-appliance="${edge}"]`).waitFor();
    await page.getByTestId('apply-chart').first().waitFor();
    await shot(page, '02-fleet');
    await page.locator(`[data-testid=appliance-row][data-appliance="${edge}"] [data-testid=appliance-link]`).click();
    await page.getByTestId('timeline-entry').first().waitFor();
    assert.equal(await page.getByTestId('approve-button').count(), 0, 'a viewer sees no approve button');
    assert.equal(await page.getByTestId('write-actions').count(), 0, 'nor any write action');
    const status = await page.evaluate(async (name) => {
      const token = Object.values(sessionStorage).find((v) => v.startsWith('ptl_'));
      const r = await fetch(`/api/v1/appliances/${name}/approve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'a viewer tries' }),
      });
      return r.status;
    }, edge);
    assert.equal(status, 403, 'the API refuses a viewer’s approval');
    await page.close();
  },
);

test(
  'a kubectl change appears live in the timeline; its diff, explain and what was live show it',
  { skip },
  async () => {
    const page = await openPage();
    await signIn(page, p.console!.viewerToken, 'viewer');
    await page.goto(`${p.console!.url}/#/appliances/${edge}`);
    await page.getByTestId('timeline-entry').first().waitFor();
    await page.locator('[data-testid=live-indicator][data-state=live]').waitFor();
    const shiftBefore = Number(await page.evaluate('window.__shift'));
    await p.apply(store('green'));
    await eventually('the store served by green', async () => assert.equal(await who(), pods.green[0]), { context });
    const green = await headId();
    await page.getByTestId('new-entries').waitFor({ timeout: 30_000 });
    const shiftLive = Number(await page.evaluate('window.__shift'));
    assert.ok(
      shiftLive - shiftBefore < 0.05,
      `live entries shift the layout (${(shiftLive - shiftBefore).toFixed(3)})`,
    );
    await page.getByTestId('new-entries').click();
    const entry = page.locator(`[data-testid=timeline-entry][data-kind=snapshot][data-entry-id="${green}"]`);
    await entry.waitFor();
    assert.match(
      await entry.getByTestId('snapshot-cause').innerText(),
      /Ingress/,
      'the entry names the Ingress it came from',
    );
    await shot(page, '03-timeline');
    await entry.getByTestId('snapshot-diff-link').click();
    await page.getByTestId('diff-view').waitFor();
    assert.match(await page.getByTestId('diff-to').innerText(), /green/, 'the diff shows the new backend');
    await shot(page, '04-diff');
    await page.goto(`${p.console!.url}/#/appliances/${edge}/explain?q=${encodeURIComponent(`${host}/`)}`);
    await page.getByTestId('explain-answer').waitFor();
    assert.match(await page.getByTestId('explain-answer').innerText(), /store/);
    await shot(page, '05-explain');
    await page.goto(`${p.console!.url}/#/appliances/${edge}/at?time=${encodeURIComponent(new Date().toISOString())}`);
    await page.getByTestId('at-objects').waitFor();
    await shot(page, '06-at');
    await page.close();
  },
);

test('on a phone the pages fit the width; nothing scrolls sideways', { skip }, async () => {
  const page = await openPage(390, 844);
  await signIn(page, p.console!.viewerToken, 'viewer');
  for (const [name, hash, ready] of [
    ['07-phone-fleet', '#/', 'appliances-table'],
    ['08-phone-timeline', `#/appliances/${edge}`, 'timeline-entry'],
    ['09-phone-diff', `#/diff/${blueSnapshot}/${await headId()}`, 'diff-view'],
  ] as const) {
    await page.goto(`${p.console!.url}/${hash}`);
    await page.getByTestId(ready).first().waitFor();
    const [scroll, inner] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [
      number,
      number,
    ];
    assert.ok(scroll <= inner, `${name}: the page is ${scroll} px wide on a ${inner} px screen`);
    await shot(page, name);
  }
  await page.close();
});

test(
  'the operator rolls back with a reason and confirmation; traffic returns to blue through HAProxy',
  { skip },
  async () => {
    const page = await openPage();
    await signIn(page, p.console!.operatorToken, 'operator');
    await page.goto(`${p.console!.url}/#/appliances/${edge}`);
    await page.getByTestId('approve-button').waitFor();
    await page.goto(`${p.console!.url}/#/appliances/${edge}/rollback?to=${blueSnapshot}`);
    await page.getByTestId('diff-view').waitFor();
    await page.getByTestId('rollback-reason').fill('checkout broken on green');
    // Confirmation: the appliance's name typed out.
    await page.getByTestId('rollback-confirm').fill(edge);
    await shot(page, '10-rollback');
    await page.getByTestId('rollback-submit').click();
    await page.getByTestId('rollback-outcome').waitFor({ timeout: 30_000 });
    await shot(page, '11-rollback-done');
    await eventually('the store served by blue again', async () => assert.equal(await who(), pods.blue[0]), {
      context,
    });
    await page.goto(`${p.console!.url}/#/appliances/${edge}`);
    const action = page.locator('[data-testid=timeline-entry][data-kind=rollback]').first();
    await action.waitFor();
    assert.match(await action.innerText(), /operator \(token\)[\s\S]*checkout broken on green/);
    await shot(page, '12-timeline-after-rollback');
    await page.close();
  },
);
