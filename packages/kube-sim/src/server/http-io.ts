import type { IncomingMessage, ServerResponse } from 'node:http';
import { toStatus, type ApiError } from '../core/api-error.ts';

/** Request bodies above this are refused with 413 before parsing (the API server's 3 MiB limit). */
export const maxRequestBytes = 3 * 1024 * 1024;

/** Writes a JSON response. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  contentType = 'application/json',
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
    ...headers,
  });
  res.end(text);
}

/** Writes an ApiError as a Status response with its HTTP code. */
export function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): void {
  sendJson(res, error.code, toStatus(error), 'application/json', headers);
}

/** Reads a request body as text, or returns the 413 to answer when it is over the limit. */
export async function readBody(
  req: IncomingMessage,
): Promise<{ ok: true; text: string } | { ok: false; error: ApiError }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    // Past the limit the rest is drained, not kept, so the answer reaches the client on a healthy connection.
    if (size <= maxRequestBytes) chunks.push(buf);
  }
  if (size > maxRequestBytes)
    return {
      ok: false,
      error: {
        code: 413,
        reason: 'RequestEntityTooLarge',
        message: `Request entity too large: limit is ${maxRequestBytes}`,
      },
    };
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}

/** Parses a JSON request body, or returns the 400 the API server gives for undecodable bodies. */
export function parseJsonBody(text: string): { ok: true; value: unknown } | { ok: false; error: ApiError } {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    // JSON.parse rejects undecodable text with a SyntaxError: that is the client's 400, anything else a bug.
    if (!(error instanceof SyntaxError)) throw error;
    const detail = error.message;
    return {
      ok: false,
      error: {
        code: 400,
        reason: 'BadRequest',
        message: `the body of the request was in an unknown format - accepted media types include: application/json: ${detail}`,
      },
    };
  }
}
