/** The longest reason a write records: a sentence or a ticket link, not a log. */
export const MAX_REASON_LENGTH = 1000;

/**
 * Why an operator wrote, checked: required (blank is no reason) and at most MAX_REASON_LENGTH characters after
 * trimming. Every approve, rollback and resume records one, from the CLI and the console alike.
 */
export function checkReason(
  reason: string | null | undefined,
): { readonly ok: true; readonly reason: string } | { readonly ok: false; readonly message: string } {
  const r = reason?.trim() ?? '';
  if (r === '') return { ok: false, message: 'a reason is required: operator actions are part of the audit trail' };
  if (r.length > MAX_REASON_LENGTH)
    return { ok: false, message: `the reason is ${r.length} characters; at most ${MAX_REASON_LENGTH} are kept` };
  return { ok: true, reason: r };
}
