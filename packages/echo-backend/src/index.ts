export {
  startEchoBackends,
  type EchoBackend,
  type EchoBackends,
  type EchoBackendSpec,
  type EchoContext,
  type EchoReply,
} from './start-echo-backends.ts';
