export type * from './model.ts';
export { canonicalJson, compareCodeUnits } from './canonical-json.ts';
export { contentHash } from './content-hash.ts';
