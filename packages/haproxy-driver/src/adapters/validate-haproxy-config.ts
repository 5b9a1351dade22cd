import { execFile } from 'node:child_process';

/** Result of `haproxy -c`: valid, or the alerts that made it invalid. */
export type ConfigValidation = { readonly ok: true } | { readonly ok: false; readonly message: string };

/**
 * Checks a configuration file with `haproxy -c -f <file>` without touching the running process.
 * Exit code 0 means valid (warnings allowed). The message keeps the `[ALERT]` lines, which name the file, line
 * and problem; the config holds no key material, so they are safe to log.
 */
export function validateHaproxyConfig(
  binary: string,
  configFile: string,
  timeoutMs = 60_000,
): Promise<ConfigValidation> {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      ['-c', '-f', configFile],
      { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve({ ok: true });
          return;
        }
        if (typeof error.code !== 'number') {
          reject(error);
          return;
        }
        const alerts = `${stdout}\n${stderr}`
          .split('\n')
          .filter((line) => line.includes('[ALERT]'))
          .map((line) => line.replace(/^\[ALERT\]\s+\(\d+\)\s*:\s*/, '').trim())
          .slice(0, 10);
        resolve({ ok: false, message: alerts.length > 0 ? alerts.join('; ') : `haproxy -c exited with ${error.code}` });
      },
    );
  });
}
