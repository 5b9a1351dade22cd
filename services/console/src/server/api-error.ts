import { PortolanError } from '@portolan/errors';

/** The body of every error the API answers: a stable code and a message that names the object and the reason. */
export interface ApiErrorBody {
  readonly error: { readonly code: string; readonly message: string };
}

/** The statuses the API answers errors with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 503;

/** An error a handler throws to answer with a status; the app's error handler turns it into an ApiErrorBody. */
export class ApiError extends PortolanError {
  readonly code: string;
  readonly status: ErrorStatus;

  constructor(status: ErrorStatus, code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
    this.code = code;
  }
}

/** The error body for a status and message. */
export function errorBody(code: string, message: string): ApiErrorBody {
  return { error: { code, message } };
}
