import type { DesiredState } from '@portolan/desired-state';
import type { BackendSlots, HaproxyBundle } from './haproxy-bundle.ts';
import { HaproxyRenderer, type RenderMode } from './haproxy-renderer.ts';
import type { HaproxyRenderOptions } from './render-parts.ts';

export { HaproxyRenderer, type RenderMode } from './haproxy-renderer.ts';
export {
  type HaproxyRenderOptions,
  type RenderDelta,
  certificatePath,
  configSections,
  defaultRenderTuning,
} from './render-parts.ts';
export { CONFIG_FILE, RUNTIME_SOCKET, SERVER_STATE_FILE } from './fixed-sections.ts';

/**
 * Renders a desired state into the complete bundle HAProxy should run: haproxy.cfg, maps, crt-lists,
 * backend slots and certificate references. Pure and deterministic: the same (desired, options, previous)
 * gives the same bytes. `previous` is the slot assignment last read back, so members keep their slots; a pool
 * whose backend `previous` lacks is bridged into a free spare where it can be (see `spare-backends.ts`).
 */
export function renderHaproxyBundle(
  desired: DesiredState,
  options: HaproxyRenderOptions,
  previous: readonly BackendSlots[] | HaproxyBundle = [],
  mode: RenderMode = {},
): HaproxyBundle {
  return new HaproxyRenderer(options).render(desired, previous, mode);
}
