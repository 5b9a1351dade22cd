import type { ObjectRef, Text } from '@portolan/desired-state';

/**
 * The HAProxy driver's vendor model: everything Portolan owns on one HAProxy, as data.
 *
 * `render` produces it from a DesiredState; `readBack` produces the same shape from the files on disk and the
 * Runtime API (`show servers state`, `show map`, `show ssl cert`), so `diff` compares like with like.
 * All paths are relative to the config directory; every array is sorted (by name or path) so equal
 * bundles are equal byte for byte. Certificates appear by reference only: PEM material is never part of it.
 */
export interface HaproxyBundle {
  /** haproxy.cfg, map files and crt-lists, sorted by path. Certificate PEMs are not here (they are secrets). */
  readonly files: readonly BundleFile[];
  /** Every backend with its server slots, sorted by backend name. */
  readonly backends: readonly BackendSlots[];
  /** Map contents as HAProxy should hold them in memory, sorted by path; entries sorted by key. */
  readonly maps: readonly MapContent[];
  /** Certificate files served by crt-lists, sorted by path. */
  readonly certificates: readonly CertificateFile[];
}

/**
 * One text file, path relative to the config directory. A render gives haproxy.cfg as a JoinedText of its sections
 * (header, global, defaults, frontends, then backends in `backends` order); a read-back gives plain strings.
 */
export interface BundleFile {
  readonly path: string;
  readonly content: Text;
}

/** What a server slot is doing: serving, draining (no new sessions) or free (maintenance). */
export type SlotState = 'ready' | 'drain' | 'maint';

/** One pre-declared `server sN` line of a backend: filled by a pool member or free. */
export interface ServerSlot {
  /** `s1`, `s2`, … — stable for as long as the backend exists. */
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly state: SlotState;
  readonly weight: number;
}

/** A backend and its slots in slot-number order. */
export interface BackendSlots {
  readonly name: string;
  readonly slots: readonly ServerSlot[];
}

/** One map entry: key, then backend name. */
export type MapEntry = readonly [key: string, value: string];

/** A map file's entries. */
export interface MapContent {
  readonly path: string;
  readonly entries: readonly MapEntry[];
}

/** A certificate PEM file the crt-lists name; its content comes from `secret` at execute time. */
export interface CertificateFile {
  readonly path: string;
  readonly secret: ObjectRef;
  /** The planner's keyed fingerprint of the Secret: changes exactly when the material does. */
  readonly fingerprint: string;
}

/** The empty bundle: what an appliance that holds nothing of ours reads back as. */
export const emptyBundle: HaproxyBundle = { files: [], backends: [], maps: [], certificates: [] };
