import type { ObjectRef } from '@portolan/desired-state';

/**
 * The driver's model of what it owns on a LoadMaster (the `Vendor` of ApplianceDriver). The same shape is
 * produced by `render` (desired) and by the read-back (observed); observed objects also carry appliance
 * indexes (`index`, `rsIndex`), which the diff ignores when comparing and uses only to address orphans.
 */

/** A real server: by address and port within its VS or SubVS. */
export interface LmRealServerSpec {
  readonly address: string;
  readonly port: number;
  readonly weight: number;
  /** false = disabled on the appliance (a draining endpoint takes no new connections). */
  readonly enable: boolean;
}

/** A SubVS of an owned VS: one per pool it routes to; content rules select it. */
export interface LmSubVsSpec {
  /** Owner mark (see owner-mark.ts); '' for an unnamed SubVS found inside an owned VS (an interrupted create). */
  readonly nickname: string;
  /** Names of the content rules assigned to the SubVS in its parent (sorted). */
  readonly rules: readonly string[];
  /** Sorted by (address, port). */
  readonly realServers: readonly LmRealServerSpec[];
  /**
   * Managed SubVS parameters as the API takes them. Desired: `Schedule: 'wrr'` when the real servers' weights
   * differ, else absent (the appliance's `rr` is left alone). Observed: the SubVS's `Schedule`.
   */
  readonly params?: Readonly<Record<string, string>>;
  /** Header rules applied to requests routed to this SubVS (`addrequestrule`), in order; absent = none. */
  readonly requestRules?: readonly string[];
  /** Header rules applied to their responses (`addresponserule`), in order; absent = none. */
  readonly responseRules?: readonly string[];
  readonly index?: number;
  readonly rsIndex?: number;
}

/** A virtual service this driver created (Ingress mode). */
export interface LmVsSpec {
  readonly nickname: string;
  readonly address: string;
  readonly port: number;
  readonly protocol: 'tcp';
  /**
   * Managed VS parameters as the API takes them (`VStype`, `SSLAcceleration`, `CertFile`, `ErrorCode`, …),
   * normalised strings; `Schedule: 'wrr'` only on a VS whose own real servers' weights differ.
   */
  readonly params: Readonly<Record<string, string>>;
  /** Sorted by nickname. */
  readonly subVss: readonly LmSubVsSpec[];
  /** Real servers directly on the VS (TLS passthrough, which cannot route by content). */
  readonly realServers: readonly LmRealServerSpec[];
  /**
   * Pre-processing rules (`addprerule`), in evaluation order: header and method conditions and the exclusions
   * of header-conditioned routes, which only set flags for the SubVS rules. Absent = none.
   */
  readonly preRules?: readonly string[];
  readonly index?: number;
}

/** A content rule this driver created: a match rule (type 0, default) or a header edit (1 add, 2 delete). */
export interface LmRuleSpec {
  readonly name: string;
  /** 0 MatchContentRule (absent = 0), 1 AddHeaderRule, 2 DeleteHeaderRule. */
  readonly type?: 0 | 1 | 2;
  /** Match: the regex; delete: the header name. '' for an add rule. */
  readonly pattern: string;
  /** Prepend the Host header to the URL before matching (host and path in one exact regex). */
  readonly incHost: boolean;
  /** Match: the header read instead of the URL (`method` = the request method); add: the header added. */
  readonly header?: string;
  /** Add: the header's value. */
  readonly replacement?: string;
  /** Flags 1–9 (0 or absent = none): set when this match rule matches / try the rule only when set / not set. */
  readonly setOnMatch?: number;
  readonly onlyOnFlag?: number;
  readonly onlyOnNoFlag?: number;
}

/** A certificate this driver uploaded; the name embeds the material's fingerprint, so new material means a new name. */
export interface LmCertSpec {
  readonly name: string;
  /** The Secret to read at execute time; null when observed (the appliance does not know it). */
  readonly secret: ObjectRef | null;
}

/** Service mode: a Service feeding a pre-existing VS that this driver never creates or deletes. */
export interface LmBindingSpec {
  /** VS index ("12") or "ip:port:prot". */
  readonly target: string;
  /** `cluster/namespace/name` of the Service (for messages and Events). */
  readonly service: string;
  readonly realServers: readonly LmRealServerSpec[];
}

/** A top-level VS not created by this driver, as read back: a possible Service-mode target. */
export interface LmTargetVs {
  readonly index: number;
  readonly address: string;
  readonly port: number;
  readonly protocol: string;
  readonly realServers: readonly (LmRealServerSpec & { readonly rsIndex: number })[];
}

/** Everything the driver owns or feeds on one LoadMaster. */
export interface LmVendorState {
  readonly virtualServices: readonly LmVsSpec[];
  readonly rules: readonly LmRuleSpec[];
  readonly certificates: readonly LmCertSpec[];
  /** Desired only. */
  readonly bindings: readonly LmBindingSpec[];
  /** Observed only. */
  readonly targets: readonly LmTargetVs[];
  /** Desired only: virtual services that could not be rendered, with why (e.g. no address). */
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
}
