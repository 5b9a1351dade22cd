/** A problem with one object, before it becomes a condition: a stable CamelCase reason and a message for people. */
export interface Issue {
  readonly reason: string;
  readonly message: string;
}

/** Builds an issue. */
export function issue(reason: string, message: string): Issue {
  return { reason, message };
}
