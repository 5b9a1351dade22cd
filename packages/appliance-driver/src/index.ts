export type { Operation, OperationResult, OperationOutcome } from './operation.ts';
export type { ApplianceDriver, ExecutionContext, SecretResolver, TlsMaterial } from './driver.ts';
export { ownerNote, parseOwnerNote } from './ownership.ts';
