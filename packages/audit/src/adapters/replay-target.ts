import fs from 'node:fs/promises';
import path from 'node:path';
import type { ApplianceDriver } from '@portolan/appliance-driver';
import { DriverRegistry } from '@portolan/drivers';
import { errorMessage, isSystemError } from '@portolan/errors';
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
  if (appliance.driver === 'haproxy') return haproxyTarget(registry, appliance, baseDir, to, options.force);
  const target = retargeted(appliance, targetUrl(appliance, to, options.force), options.insecure);
  try {
    return { driver: await registry.create(target, baseDir), haproxyDir: null, haproxyRunning: false };
  } catch (cause) {
    throw new ReplayTargetError(`cannot build the ${appliance.driver} driver for ${to}: ${errorMessage(cause)}`, {
      cause,
    });
  }
}

/** An HAProxy replay writes into the directory `to`; with a master socket there, through the full driver path. */
async function haproxyTarget(
  registry: DriverRegistry,
  appliance: ApplianceConfig,
  baseDir: string,
  to: string,
  force: boolean,
): Promise<ReplayTarget> {
  const h = appliance.haproxy!;
  const dir = path.resolve(to);
  if (!force && dir === path.resolve(h.configDir))
    throw new ReplayTargetError(
      `${dir} is the live configuration directory of ${appliance.name}; pass --force to replay into it`,
    );
  await fs.mkdir(dir, { recursive: true });
  const masterSocket = path.join(dir, 'master.sock');
  const running = await fs.stat(masterSocket).then(
    (s) => s.isSocket(),
    (e: unknown) => {
      // No socket file: no HAProxy runs there, the replay writes files only. Anything else is a real fault.
      if (isSystemError(e, 'ENOENT')) return false;
      throw new ReplayTargetError(`cannot check ${masterSocket}: ${errorMessage(e)}`, { cause: e });
    },
  );
  const driver = await registry.create({ ...appliance, haproxy: { ...h, configDir: dir, masterSocket } }, baseDir);
  return { driver, haproxyDir: dir, haproxyRunning: running };
}

/** The emulator URL `to`, refused when it is not http(s) or (without `force`) is the live appliance's address. */
function targetUrl(appliance: ApplianceConfig, to: string, force: boolean): URL {
  let url: URL;
  try {
    url = new URL(to);
  } catch (cause) {
    // The URL constructor rejects anything unparsable with a TypeError (ERR_INVALID_URL).
    if (!(cause instanceof TypeError)) throw cause;
    throw new ReplayTargetError(
      `--to ${to} is not a URL (a ${appliance.driver} replay needs the emulator's URL, e.g. https://127.0.0.1:9070)`,
      { cause },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ReplayTargetError(`--to ${to}: only http and https URLs`);
  const live = appliance.vtm?.url ?? appliance.loadmaster?.url;
  if (!force && live !== undefined && new URL(live).origin === url.origin)
    throw new ReplayTargetError(
      `${url.origin} is the live address of ${appliance.name}; pass --force to replay onto it`,
    );
  return url;
}

/** The appliance's config with its vTM or LoadMaster address replaced by the replay target's. */
function retargeted(appliance: ApplianceConfig, url: URL, insecure: boolean): ApplianceConfig {
  const address = url.toString().replace(/\/$/, '');
  return appliance.driver === 'vtm'
    ? { ...appliance, vtm: { ...appliance.vtm!, url: address, insecureTls: insecure || appliance.vtm!.insecureTls } }
    : {
        ...appliance,
        loadmaster: {
          ...appliance.loadmaster!,
          url: address,
          insecureTls: insecure || appliance.loadmaster!.insecureTls,
        },
      };
}
