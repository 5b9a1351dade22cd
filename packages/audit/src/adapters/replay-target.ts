import fs from 'node:fs/promises';
import path from 'node:path';
import type { ApplianceDriver } from '@portolan/appliance-driver';
import { DriverRegistry } from '@portolan/applier';
import type { ApplianceConfig } from '@portolan/fleet-config';
import { ReplayTargetError } from '../errors.ts';

/** Where a replay writes: a driver for the target and, for HAProxy, the directory it writes into. */
export interface ReplayTarget {
  readonly driver: ApplianceDriver<unknown>;
  /** HAProxy only: the target config directory (files-only replay when no HAProxy runs there). */
  readonly haproxyDir: string | null;
  /** HAProxy only: whether a master socket answers in the directory (then the full driver path runs). */
  readonly haproxyRunning: boolean;
}

/**
 * Builds the appliance's own driver pointed at the replay target: a vTM or LoadMaster (emulator) URL with the
 * appliance's credentials, or an HAProxy config directory. The appliance's configured address is refused unless
 * `force`: replay is for emulators and scratch directories, not for overwriting the live appliance.
 */
export async function openReplayTarget(
  appliance: ApplianceConfig,
  baseDir: string,
  to: string,
  options: { insecure: boolean; force: boolean },
): Promise<ReplayTarget> {
  const registry = new DriverRegistry();
  if (appliance.driver === 'haproxy') {
    const h = appliance.haproxy!;
    const dir = path.resolve(to);
    if (!options.force && dir === path.resolve(h.configDir))
      throw new ReplayTargetError(
        `${dir} is the live configuration directory of ${appliance.name}; pass --force to replay into it`,
      );
    await fs.mkdir(dir, { recursive: true });
    const masterSocket = path.join(dir, 'master.sock');
    const running = await fs.stat(masterSocket).then(
      (s) => s.isSocket(),
      () => false,
    );
    const driver = await registry.create({ ...appliance, haproxy: { ...h, configDir: dir, masterSocket } }, baseDir);
    return { driver, haproxyDir: dir, haproxyRunning: running };
  }
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    throw new ReplayTargetError(
      `--to ${to} is not a URL (a ${appliance.driver} replay needs the emulator's URL, e.g. https://127.0.0.1:9070)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ReplayTargetError(`--to ${to}: only http and https URLs`);
  const live = appliance.vtm?.url ?? appliance.loadmaster?.url;
  if (!options.force && live !== undefined && new URL(live).origin === url.origin)
    throw new ReplayTargetError(
      `${url.origin} is the live address of ${appliance.name}; pass --force to replay onto it`,
    );
  const target: ApplianceConfig =
    appliance.driver === 'vtm'
      ? {
          ...appliance,
          vtm: {
            ...appliance.vtm!,
            url: url.toString().replace(/\/$/, ''),
            insecureTls: options.insecure || appliance.vtm!.insecureTls,
          },
        }
      : {
          ...appliance,
          loadmaster: {
            ...appliance.loadmaster!,
            url: url.toString().replace(/\/$/, ''),
            insecureTls: options.insecure || appliance.loadmaster!.insecureTls,
          },
        };
  try {
    return { driver: await registry.create(target, baseDir), haproxyDir: null, haproxyRunning: false };
  } catch (cause) {
    throw new ReplayTargetError(`cannot build the ${appliance.driver} driver for ${to}: ${(cause as Error).message}`, {
      cause,
    });
  }
}
