export type * from './model.ts';
export { canonicalJson, compareCodeUnits } from './canonical-json.ts';
export { contentHash, sha256Text } from './content-hash.ts';
export { ValueTreeEncoder, type TreeSink } from './value-tree.ts';
export { JoinedText, isSameText, textOf, type Text } from './joined-text.ts';
export { decodeValueTree, treeReferences, type TreeLookup } from './value-tree-decode.ts';
export { NotJsonError, ValueTreeCorruptError } from './errors.ts';
export { objectRefKey, sourcesOf, withoutSources } from './without-sources.ts';
