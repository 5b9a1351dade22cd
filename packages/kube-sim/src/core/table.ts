import { tableColumnsByKind, type TableColumn } from './table-columns.ts';
import { servedAs, type KubeObject, type ResourceType } from './resource-types.ts';

/** What each Table row embeds (`includeObject` query parameter; the API server default is Metadata). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Options for rendering a Table. */
export interface TableOptions {
  readonly nowMs: number;
  readonly includeObject: IncludeObject;
  readonly listMeta: Readonly<Record<string, unknown>>;
  /** Omit columnDefinitions (watch events after the first). */
  readonly noHeaders?: boolean;
}

const fallbackColumns: readonly TableColumn[] = [
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'Name',
    priority: 0,
    cell: (o) => o.metadata?.name ?? '',
  },
];

/** The `PartialObjectMetadata` form of an object (metadata only), as Table rows and metadata-only lists carry it. */
export function toPartialObjectMetadata(obj: KubeObject): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

function rowObject(type: ResourceType, obj: KubeObject, include: IncludeObject): Record<string, unknown> | undefined {
  if (include === 'None') return undefined;
  return include === 'Object' ? servedAs(type, obj) : toPartialObjectMetadata(obj);
}

/** Renders objects as a meta.k8s.io/v1 Table (what `kubectl get` asks for with `as=Table`). */
export function toTable(
  type: ResourceType,
  objects: readonly KubeObject[],
  options: TableOptions,
): Record<string, unknown> {
  const columns = tableColumnsByKind[type.kind] ?? fallbackColumns;
  const definitions = columns.map(({ name, type: t, format, description, priority }) => ({
    name,
    type: t,
    format,
    description,
    priority,
  }));
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: options.listMeta,
    columnDefinitions: options.noHeaders === true ? null : definitions,
    rows: objects.map((o) => {
      const object = rowObject(type, o, options.includeObject);
      return { cells: columns.map((c) => c.cell(o, options.nowMs)), ...(object === undefined ? {} : { object }) };
    }),
  };
}
