/** The response representation a request negotiated through its Accept header. */
export type ResponseFormat = 'json' | 'table' | 'partial-metadata' | 'aggregated-discovery' | 'not-acceptable';

interface MediaRange {
  readonly type: string;
  readonly params: Readonly<Record<string, string>>;
}

function parseAccept(header: string): MediaRange[] {
  return header.split(',').map((part) => {
    const [type = '', ...rest] = part.split(';').map((s) => s.trim());
    const params: Record<string, string> = {};
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).trim()] = p.slice(eq + 1).trim();
    }
    return { type: type.toLowerCase(), params };
  });
}

function formatOf(range: MediaRange): ResponseFormat | null {
  if (range.type === '*/*' || range.type === 'application/*') return 'json';
  if (range.type !== 'application/json') return null;
  const { as, g, v } = range.params;
  if (as === undefined) return 'json';
  if (as === 'Table' && g === 'meta.k8s.io' && (v === 'v1' || v === 'v1beta1')) return 'table';
  if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && g === 'meta.k8s.io')
    return 'partial-metadata';
  if (as === 'APIGroupDiscoveryList' && g === 'apidiscovery.k8s.io' && v === 'v2') return 'aggregated-discovery';
  return null;
}

/** Picks the first Accept entry the simulator can produce (JSON only: no protobuf, no YAML). */
export function negotiateFormat(accept: string | undefined): ResponseFormat {
  if (accept === undefined || accept.trim() === '') return 'json';
  for (const range of parseAccept(accept)) {
    const format = formatOf(range);
    if (format !== null) return format;
  }
  return 'not-acceptable';
}

/** The Content-Type header for a negotiated format. */
export function contentTypeOf(format: ResponseFormat): string {
  switch (format) {
    case 'table':
      return 'application/json;as=Table;v=v1;g=meta.k8s.io';
    case 'aggregated-discovery':
      return 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
    default:
      return 'application/json';
  }
}
