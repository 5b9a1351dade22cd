import type { DriverCore, Operation } from '@portolan/appliance-driver';
import type { DesiredState } from '@portolan/desired-state';
import type { HaproxyBundle } from './haproxy-bundle.ts';
import { HaproxyRenderer, type HaproxyRenderOptions, type RenderMode } from './render-haproxy-bundle.ts';
import { BRIDGES_FILE, parseBridges } from './spare-backends.ts';
import { diffHaproxy } from './diff-haproxy.ts';

/**
 * The HAProxy driver's pure half. `render` places members into the slots `observed` shows them in (a read-back, or
 * the render an apply fully succeeded with), so members keep their slots even when the caller skips the read-back
 * between applies. After an apply whose results are all ok, the render is what a read-back would return (the
 * integration tests check exactly that), so a caller may diff the next desired state against it.
 *
 * It holds one HaproxyRenderer, whose fields are a memo of earlier renders (an endpoint change re-renders one
 * backend, and `diff` compares only what that render revisited): they make calls faster, never change a result.
 */
export class HaproxyCore implements DriverCore<HaproxyBundle> {
  readonly kind = 'haproxy' as const;
  readonly #renderer: HaproxyRenderer;

  constructor(options: HaproxyRenderOptions) {
    this.#renderer = new HaproxyRenderer(options);
  }

  render(desired: DesiredState, observed: HaproxyBundle | null, mode: RenderMode = {}): HaproxyBundle {
    return this.#renderer.render(desired, observed, mode);
  }

  /** Whether a bundle serves pools from spare backends, which a tidy render would give backends of their own. */
  provisional(bundle: HaproxyBundle): boolean {
    const file = bundle.files.find((f) => f.path === BRIDGES_FILE);
    return file !== undefined && parseBridges(String(file.content)).size > 0;
  }

  diff(desired: HaproxyBundle, observed: HaproxyBundle): readonly Operation[] {
    return diffHaproxy(desired, observed, { delta: this.#renderer.deltaOf(desired) });
  }
}
