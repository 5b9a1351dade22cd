import type { WatchedKind } from './watched-kinds.ts';

/** Which namespaces a cluster's namespaced kinds are followed in (fleet config `namespaces`). */
export type NamespaceScope = 'all-except-kube-system' | string | readonly string[];

/** One list/watch stream: a kind in one namespace, or cluster-wide. Several streams may feed one kind. */
export interface WatchStream {
  /** Stable id for logs and metrics, e.g. `Ingress@shop` or `Node`. */
  readonly id: string;
  readonly kind: WatchedKind;
  /** Namespace for a namespaced request path; undefined = cluster-wide. */
  readonly namespace?: string;
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
}

/** Query parameters of one list page or watch request. */
export type StreamRequest =
  | { readonly type: 'list'; readonly limit: number; readonly continueToken?: string }
  | { readonly type: 'watch'; readonly resourceVersion: string; readonly timeoutSeconds: number };

/**
 * The streams of one cluster. A namespace list gives one stream per namespace (RBAC can stay namespaced; no
 * cluster-wide Secret access); "all except kube-system" is one cluster-wide stream per kind
 * with a server-side field selector.
 */
export function planWatchStreams(
  kinds: readonly WatchedKind[],
  scope: NamespaceScope,
  secretLabelSelector: string,
): WatchStream[] {
  const namespaces: readonly (string | undefined)[] =
    scope === 'all-except-kube-system' ? [undefined] : typeof scope === 'string' ? [scope] : [...new Set(scope)].sort();
  return kinds.flatMap((kind) => {
    const labelSelector = kind.kind === 'Secret' && secretLabelSelector !== '' ? secretLabelSelector : undefined;
    if (!kind.namespaced) return [stream(kind, undefined, kind.fieldSelector, labelSelector)];
    return namespaces.map((ns) => {
      const fields = [kind.fieldSelector, ns === undefined ? 'metadata.namespace!=kube-system' : undefined].filter(
        (f) => f !== undefined,
      );
      return stream(kind, ns, fields.length === 0 ? undefined : fields.join(','), labelSelector);
    });
  });
}

function stream(
  kind: WatchedKind,
  namespace: string | undefined,
  fieldSelector: string | undefined,
  labelSelector: string | undefined,
): WatchStream {
  return {
    id: namespace === undefined ? kind.kind : `${kind.kind}@${namespace}`,
    kind,
    ...(namespace === undefined ? {} : { namespace }),
    ...(fieldSelector === undefined ? {} : { fieldSelector }),
    ...(labelSelector === undefined ? {} : { labelSelector }),
  };
}

/**
 * The request path and query of a list page or a watch. Lists never send resourceVersion: every list is a quorum
 * read, so a lagging cache can never send the watcher back in time. Watches always ask for bookmarks.
 */
export function streamRequestPath(s: WatchStream, request: StreamRequest): string {
  const base =
    s.namespace === undefined
      ? `${s.kind.apiPrefix}/${s.kind.resource}`
      : `${s.kind.apiPrefix}/namespaces/${encodeURIComponent(s.namespace)}/${s.kind.resource}`;
  const q = new URLSearchParams();
  if (s.fieldSelector !== undefined) q.set('fieldSelector', s.fieldSelector);
  if (s.labelSelector !== undefined) q.set('labelSelector', s.labelSelector);
  if (request.type === 'list') {
    q.set('limit', String(request.limit));
    if (request.continueToken !== undefined) q.set('continue', request.continueToken);
  } else {
    q.set('watch', '1');
    q.set('resourceVersion', request.resourceVersion);
    q.set('allowWatchBookmarks', 'true');
    q.set('timeoutSeconds', String(request.timeoutSeconds));
  }
  return `${base}?${q.toString()}`;
}
