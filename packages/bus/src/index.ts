export { NatsEventBus, BusError, natsServers, type BusMessage } from './nats-event-bus.ts';
export { busDeclaration, type BusDeclaration } from './bus-declaration.ts';
export {
  kubeEventSubject,
  kubeListMarkerSubject,
  heartbeatSubject,
  relistRequestSubject,
  holdApprovalSubject,
  objectsRefusedSubject,
  selectionHeldSubject,
  planSubject,
  applySubject,
  driftSubject,
  kubeEventMsgId,
  kubeListMarkerMsgId,
  type KindToken,
} from './subjects.ts';
