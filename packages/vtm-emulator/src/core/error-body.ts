/**
 * vTM's error bodies, as its REST API documents them: a dotted `error_id`, a human `error_text` and, for validation
 * errors, `error_info` nested section → key (→ table row → column) → {error_id, error_text}.
 */

/** One leaf of `error_info`. */
export interface ErrorLeaf {
  readonly error_id: string;
  readonly error_text: string;
}

/** The nested `error_info` tree. */
export interface ErrorInfo {
  [key: string]: ErrorInfo | ErrorLeaf;
}

/** A vTM error response body. */
export interface VtmErrorBody {
  readonly error_id: string;
  readonly error_text: string;
  readonly error_info?: ErrorInfo;
}

/** Builds an error leaf. */
export function leaf(error_id: string, error_text: string): ErrorLeaf {
  return { error_id, error_text };
}

/** The 404 body for a path that names no object. */
export function notFound(path: string): VtmErrorBody {
  return { error_id: 'resource.not_found', error_text: `Resource '${path}' does not exist` };
}

/** The 400 body for a resource that failed validation. */
export function validationError(info: ErrorInfo): VtmErrorBody {
  return { error_id: 'resource.validation_error', error_text: 'The resource provided is invalid', error_info: info };
}

/** Sets `info[path…] = value`, creating the intermediate levels. */
export function setInfo(info: ErrorInfo, path: readonly string[], value: ErrorLeaf): void {
  let node = info;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    if (next === undefined || 'error_id' in next) {
      const created: ErrorInfo = {};
      node[segment] = created;
      node = created;
    } else {
      node = next as ErrorInfo;
    }
  }
  const last = path[path.length - 1];
  if (last !== undefined) node[last] = value;
}
