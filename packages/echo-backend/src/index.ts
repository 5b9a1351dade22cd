export {
  startEchoBackends,
  type EchoBackend,
  type EchoBackends,
  type EchoBackendSpec,
  type EchoReply,
} from './start-echo-backends.ts';
