import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { LiveFeed } from '../live/live-feed.ts';
import type { ConsoleEnv } from './authenticate.ts';
import { errorResponses } from './openapi.ts';

/** How often an idle stream sends a comment, so proxies and the browser keep it open. */
const KEEPALIVE_MS = 15_000;

/**
 * GET /events: Server-Sent Events, one per new snapshot, apply, drift, hold or operator action (`event:` is the
 * type, `data:` its JSON, `id:` type and row id), after a `ready` event naming the caller.
 */
export function eventsRoute(app: OpenAPIHono<ConsoleEnv>, feed: LiveFeed, auth: MiddlewareHandler<ConsoleEnv>): void {
  app.get('/events', auth, (c) =>
    streamSSE(c, async (stream) => {
      const identity = c.get('identity');
      let wake: (() => void) | null = null;
      const queue: { event: string; data: string; id: string }[] = [];
      const unsubscribe = feed.subscribe((events) => {
        for (const e of events)
          queue.push({ event: e.type, data: JSON.stringify(e.data), id: `${e.type}:${String(e.data['id'])}` });
        wake?.();
      });
      stream.onAbort(() => {
        unsubscribe();
        wake?.();
      });
      await stream.writeSSE({ event: 'ready', data: JSON.stringify({ name: identity.name, role: identity.role }) });
      while (!stream.aborted && !stream.closed) {
        while (queue.length > 0) await stream.writeSSE(queue.shift()!);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, KEEPALIVE_MS).unref();
        });
        wake = null;
        if (queue.length === 0 && !stream.aborted) await stream.write(': keep-alive\n\n');
      }
      unsubscribe();
    }),
  );
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/events',
    tags: ['read'],
    description:
      'Server-Sent Events: `ready`, then `snapshot`, `apply`, `drift`, `hold` and `action` as they are recorded (data is JSON).',
    responses: {
      200: { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
      ...errorResponses,
    },
  });
}
