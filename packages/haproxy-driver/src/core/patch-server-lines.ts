import type { BackendSlots } from './haproxy-bundle.ts';
import { hostPort } from './config-text.ts';

const SLOT_LINE = /^( +server (s\d+) )\S+ (?:enabled|disabled) weight \d+/;

/**
 * Rewrites the runtime-changeable part (address, enabled/disabled, weight) of the server lines of some backends in
 * a rendered haproxy.cfg, leaving every other byte alone: the file then says what the Runtime API already did, so
 * a later reload starts from the same slots. Cost: one pass over the named backends' sections, not a re-render.
 * Null when a backend section or one of its slot lines is not where the render put it (the caller rewrites the
 * whole file instead).
 */
export function patchServerLines(config: string, backends: readonly BackendSlots[]): string | null {
  const edits: { start: number; end: number; text: string }[] = [];
  // Many backends at once (a burst coalesced into one apply): find every header in one pass, not one scan each.
  const headers = backends.length > 8 ? backendHeaders(config) : null;
  for (const backend of backends) {
    const header = `\nbackend ${backend.name}\n`;
    const at = headers === null ? config.indexOf(header) : (headers.get(backend.name) ?? -1);
    if (at < 0) return null;
    const wanted = new Map(backend.slots.map((s) => [s.name, s]));
    let pos = at + header.length;
    let seen = 0;
    while (pos < config.length && config[pos] === ' ') {
      const eol = config.indexOf('\n', pos);
      const end = eol < 0 ? config.length : eol;
      const match = SLOT_LINE.exec(config.slice(pos, end));
      const slot = match === null ? undefined : wanted.get(match[2]!);
      if (match !== null && slot !== undefined) {
        const enabled = slot.state === 'maint' ? 'disabled' : 'enabled';
        edits.push({
          start: pos + match[1]!.length,
          end: pos + match[0].length,
          text: `${hostPort(slot.address, slot.port)} ${enabled} weight ${slot.weight}`,
        });
        seen++;
      }
      pos = end + 1;
    }
    if (seen !== backend.slots.length) return null;
  }
  edits.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let from = 0;
  for (const e of edits) {
    parts.push(config.slice(from, e.start), e.text);
    from = e.end;
  }
  parts.push(config.slice(from));
  return parts.join('');
}

/** Where each `backend <name>` line starts (at its preceding newline), first occurrence per name. */
function backendHeaders(config: string): Map<string, number> {
  const out = new Map<string, number>();
  const marker = '\nbackend ';
  for (let i = config.indexOf(marker); i >= 0;) {
    const eol = config.indexOf('\n', i + marker.length);
    if (eol < 0) break;
    const name = config.slice(i + marker.length, eol);
    if (!out.has(name)) out.set(name, i);
    i = config.indexOf(marker, eol);
  }
  return out;
}
