export type * from './model.ts';
export { canonicalJson, compareCodeUnits } from './canonical-json.ts';
export { contentHash, sha256Text } from './content-hash.ts';
export { ValueTreeEncoder, decodeValueTree, treeReferences, textParts, type TreeSink, type TreeLookup } from './value-tree.ts';
