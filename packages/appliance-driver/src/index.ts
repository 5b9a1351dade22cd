export type { Operation, OperationResult, OperationOutcome } from './operation.ts';
export type {
  RenderMode,
  ApplianceDriver,
  ConfigCheck,
  DriverCapabilities,
  DriverCore,
  DriverRunner,
  ExecutionContext,
  SecretResolver,
  TlsMaterial,
} from './driver.ts';
export { ownerNote, parseOwnerNote } from './ownership.ts';
export { findRefusedSources, type RefusedSource } from './find-refused-sources.ts';
export { executeInTurn } from './execute-in-turn.ts';
export { CapabilityMissingError, RenderRefusedError } from './errors.ts';
