import type { BusMessage } from '@portolan/bus';
import type { ArchivedEvent } from './adapters/pg-planner-store.ts';
import type { PlannerInput } from './core/world/decode-bus-message.ts';

/** What the archive records of an input besides the message itself: its object, its kind of input, and its time. */
interface ArchiveFields {
  readonly cluster: string;
  readonly kind: string;
  readonly objectKey: string;
  readonly eventType: string;
  /** The watcher's or the operator's clock (0: none; the archive then takes the time of receipt). */
  readonly atMs: number;
}

/** The archive row of one kube-stream message, as it travelled, with what it was decoded to. */
export function archivedEvent(m: BusMessage, input: PlannerInput): ArchivedEvent {
  const f = archiveFields(m, input);
  return {
    seq: m.streamSeq,
    subject: m.subject,
    msgId: m.headers['Nats-Msg-Id'] ?? `seq:${m.streamSeq}`,
    payload: m.data,
    traceId: m.headers.traceparent?.split('-')[1] ?? null,
    cluster: f.cluster,
    kind: f.kind,
    objectKey: f.objectKey,
    eventType: f.eventType,
    receivedAt: new Date(f.atMs > 0 ? f.atMs : Date.now()),
  };
}

function archiveFields(m: BusMessage, input: PlannerInput): ArchiveFields {
  const at = inputTimeMs(input);
  switch (input.type) {
    case 'event': {
      const { namespace, name } = input;
      const objectKey = namespace === '' ? name : `${namespace}/${name}`;
      return { cluster: input.event.cluster, kind: input.event.kind, objectKey, eventType: input.event.type, atMs: at };
    }
    case 'marker':
      return {
        cluster: input.marker.cluster,
        kind: input.marker.kind,
        objectKey: '',
        eventType: 'LIST_MARKER',
        atMs: at,
      };
    case 'heartbeat':
      return { cluster: input.cluster, kind: 'Heartbeat', objectKey: '', eventType: 'HEARTBEAT', atMs: at };
    case 'approval':
      return {
        cluster: '',
        kind: 'HoldApproval',
        objectKey: input.approval.appliance,
        eventType: 'APPROVAL',
        atMs: at,
      };
    case 'refused':
      return {
        cluster: '',
        kind: 'ObjectsRefused',
        objectKey: input.refusal.appliance,
        eventType: 'REFUSED',
        atMs: at,
      };
    case 'selection-held':
      return {
        cluster: '',
        kind: 'SelectionHeld',
        objectKey: input.held.appliance,
        eventType: 'SELECTION_HELD',
        atMs: at,
      };
    case 'unreadable':
      return {
        cluster: m.subject.split('.')[1] ?? '',
        kind: 'Unreadable',
        objectKey: '',
        eventType: 'UNREADABLE',
        atMs: 0,
      };
  }
}

/** The time an input carries (the watcher's or the operator's clock; 0 when it has none). */
export function inputTimeMs(input: PlannerInput): number {
  switch (input.type) {
    case 'event':
    case 'marker':
      return input.observedAtMs;
    case 'approval':
      return input.approvedAtMs;
    case 'refused':
      return input.refusedAtMs;
    case 'selection-held':
      return input.heldAtMs;
    case 'heartbeat':
      return input.sentAtMs;
    case 'unreadable':
      return 0;
  }
}
