// Runs the real kubectl binary against a simulator whose kubeconfig is in a test's folder.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Where the tests expect kubectl. */
export const kubectlPath = '/usr/bin/kubectl';

/** A `skip` option for node:test: false when kubectl is installed, else why the test cannot run. */
export const skipWithoutKubectl: false | string = existsSync(kubectlPath)
  ? false
  : 'kubectl is not installed at /usr/bin/kubectl';

/** What one kubectl run printed and how it exited. */
export interface KubectlResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs kubectl with `dir/kubeconfig`, `dir` as HOME and a cache inside it, asynchronously (the simulator lives in
 * the test's process, so a synchronous spawn would deadlock). Killed after timeoutMs. `stdin` is written to its
 * standard input (for `-f -`), which is otherwise closed.
 */
export function runKubectl(
  dir: string,
  args: readonly string[],
  timeoutMs = 30_000,
  stdin = '',
): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = spawn(kubectlPath, args, {
      env: {
        ...process.env,
        KUBECONFIG: path.join(dir, 'kubeconfig'),
        HOME: dir,
        KUBECACHEDIR: path.join(dir, 'cache'),
      },
    });
    child.stdin.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
