export type { Operation, OperationResult, OperationOutcome } from './operation.ts';
export type { ApplianceDriver, ExecutionContext, SecretResolver, TlsMaterial } from './driver.ts';
export { ownerNote, parseOwnerNote } from './ownership.ts';
export type { ConfigCheck } from './driver.ts';
export { findRefusedSources, type RefusedSource } from './find-refused-sources.ts';
