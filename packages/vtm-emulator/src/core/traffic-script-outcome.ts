import { PortolanError } from '@portolan/errors';

/** How a rule ended. `none` means it fell through (the next rule, then the virtual server's default pool). */
export type RuleOutcome =
  | { readonly kind: 'pool'; readonly pool: string; readonly node: string | null }
  | {
      readonly kind: 'response';
      readonly status: string;
      readonly contentType: string;
      readonly body: string;
      readonly headers: string;
    }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'discard' }
  | { readonly kind: 'none' };

/** A rule uses syntax or a function this interpreter does not know (a generator bug, or a rule beyond the subset). */
export class TrafficScriptError extends PortolanError {
  readonly code = 'TRAFFIC_SCRIPT_UNSUPPORTED';
}
