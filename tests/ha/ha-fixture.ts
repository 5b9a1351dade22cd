// One HA stack per test file, on free ports under a temporary folder, stopped and removed after the file's tests.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeHaPorts, haStack, type HaStack } from '@portolan/infra';

/** The file's HA stack, available once its `before` hook ran. */
export function haStackFixture(): { readonly stack: HaStack } {
  let stack: HaStack | undefined;
  let stateDir: string | undefined;
  before(async () => {
    stateDir = mkdtempSync(path.join(tmpdir(), 'portolan-ha-'));
    stack = haStack({ config: { stateDir, ...(await freeHaPorts()) } });
    await stack.up();
  });
  after(async () => {
    await stack?.down();
    if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
  });
  return {
    get stack() {
      assert.ok(stack !== undefined, 'the fixture is used before its before() hook ran');
      return stack;
    },
  };
}

/** Runs `attempt` every `everyMs` until it resolves; returns its result and when it first succeeded. */
export async function firstSuccess<T>(
  attempt: () => Promise<T>,
  timeoutMs: number,
  everyMs = 50,
): Promise<{ value: T; at: number }> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  while (performance.now() < deadline) {
    try {
      return { value: await attempt(), at: performance.now() };
    } catch (e) {
      // Expected while the engine fails over; the last failure is reported if it never ends.
      last = e;
      await sleep(everyMs);
    }
  }
  throw new assert.AssertionError({ message: `no success within ${timeoutMs} ms; last failure: ${String(last)}` });
}
