/** A stack service could not be installed, started or reached. The message names the service and shows its log tail. */
export class StackServiceError extends Error {
  readonly code: 'STACK_PORT_TAKEN' | 'STACK_START_FAILED' | 'STACK_INSTALL_FAILED' | 'STACK_NOT_RUNNING';
  readonly service: string;
  constructor(code: StackServiceError['code'], service: string, message: string, options?: ErrorOptions) {
    super(`${service}: ${message}`, options);
    this.name = 'StackServiceError';
    this.code = code;
    this.service = service;
  }
}
