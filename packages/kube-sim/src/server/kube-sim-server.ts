import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseApiRoute, type ApiRoute } from '../core/api-route.ts';
import {
  aggregatedDiscoveryDocument,
  apiGroupDocument,
  apiGroupListDocument,
  apiResourceListDocument,
  apiVersionsDocument,
  versionDocument,
} from '../core/discovery.ts';
import { contentTypeOf, negotiateFormat } from '../core/media-type.ts';
import { openApiV3Document, openApiV3Index } from '../core/openapi-v3.ts';
import { handleAdminRequest } from './admin-handler.ts';
import type { BearerAuthenticator, Caller } from './bearer-authenticator.ts';
import { readBody, sendError, sendJson } from './http-io.ts';
import { handleResourceRequest, type ResourceContext } from './resource-handler.ts';
import type { ServiceAccountTokens } from './service-account-tokens.ts';
import { handleTokenReview } from './token-review-handler.ts';

/** One served request, for request logs. */
export interface RequestLogEntry {
  readonly method: string;
  readonly url: string;
  readonly accept: string;
  readonly contentType: string;
  readonly status: number;
}

/** What the request dispatcher needs besides the resource context. */
export interface DispatcherContext extends ResourceContext {
  readonly authenticator: BearerAuthenticator;
  readonly tokens: ServiceAccountTokens;
  readonly version: string;
  readonly serverAddress: () => string;
  readonly onRequest?: (entry: RequestLogEntry) => void;
}

const notFoundError = {
  code: 404,
  reason: 'NotFound' as const,
  message: 'the server could not find the requested resource',
  details: {},
};

function authenticate(req: IncomingMessage, ctx: DispatcherContext): Caller | null {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Bearer ')) return null;
  return ctx.authenticator.authenticate(header.slice('Bearer '.length).trim());
}

function sendDiscovery(ctx: DispatcherContext, req: IncomingMessage, res: ServerResponse, route: ApiRoute): void {
  const format = negotiateFormat(req.headers.accept);
  const aggregated = format === 'aggregated-discovery';
  switch (route.kind) {
    case 'discovery-api':
      return aggregated
        ? sendJson(res, 200, aggregatedDiscoveryDocument(true), contentTypeOf(format))
        : sendJson(res, 200, apiVersionsDocument(ctx.serverAddress()));
    case 'discovery-apis':
      return aggregated
        ? sendJson(res, 200, aggregatedDiscoveryDocument(false), contentTypeOf(format))
        : sendJson(res, 200, apiGroupListDocument());
    case 'discovery-group': {
      const doc = apiGroupDocument(route.group);
      return doc === undefined ? sendError(res, notFoundError) : sendJson(res, 200, doc);
    }
    case 'discovery-resources': {
      const doc = apiResourceListDocument(route.group, route.version);
      return doc === undefined ? sendError(res, notFoundError) : sendJson(res, 200, doc);
    }
    default:
      return sendError(res, notFoundError);
  }
}

async function route(ctx: DispatcherContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const r = parseApiRoute(url.pathname);
  if (r.kind === 'health') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    return void res.end('ok');
  }
  if (r.kind === 'version') return sendJson(res, 200, versionDocument(ctx.version));
  const caller = authenticate(req, ctx);
  if (caller === null) return sendError(res, { code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
  const user = caller.admin ? null : caller.user;
  // Discovery and OpenAPI stay open to every authenticated user (the system:discovery role); the admin endpoint
  // is the simulator's own and no ServiceAccount's business.
  if (r.kind === 'admin' && user !== null) {
    const verb = (req.method ?? 'GET').toLowerCase();
    const message = `forbidden: User "${user.name}" cannot ${verb} path "${url.pathname}"`;
    return sendError(res, { code: 403, reason: 'Forbidden', message, details: {} });
  }
  switch (r.kind) {
    case 'resource':
      return handleResourceRequest(ctx, req, res, { ...r, url, format: negotiateFormat(req.headers.accept), user });
    case 'virtual': // TokenReview is the one virtual resource served
      return handleTokenReview(ctx, req, res, { type: r.type, url, user });
    case 'openapi-v3-index':
      return sendJson(res, 200, openApiV3Index(ctx.version.replace(/\W/g, '')));
    case 'openapi-v3': {
      const doc = openApiV3Document(r.path, ctx.version);
      return doc === undefined ? sendError(res, notFoundError) : sendJson(res, 200, doc);
    }
    case 'admin': {
      const body = await readBody(req);
      if (!body.ok) return sendError(res, body.error);
      return handleAdminRequest(ctx, r.action, req.method ?? 'GET', body.text, res);
    }
    case 'not-found':
      return sendError(res, notFoundError);
    default:
      return sendDiscovery(ctx, req, res, r);
  }
}

/** Builds the request listener of the simulator's HTTPS (or HTTP) server. */
export function createRequestListener(ctx: DispatcherContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // A client that goes away mid-request makes req emit 'error' (aborted); that is normal for watches.
    req.on('error', () => undefined);
    const url = new URL(req.url ?? '/', 'https://kube-sim.invalid');
    if (ctx.onRequest !== undefined) {
      const log = ctx.onRequest;
      const entry = {
        method: req.method ?? '',
        url: `${url.pathname}${url.search}`,
        accept: req.headers.accept ?? '',
        contentType: req.headers['content-type'] ?? '',
      };
      res.on('finish', () => log({ ...entry, status: res.statusCode }));
      res.on('close', () => {
        if (!res.writableFinished) log({ ...entry, status: res.statusCode });
      });
    }
    // Like the API server, a handler that fails answers 500 InternalError (or cuts a stream already begun).
    route(ctx, req, res, url).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : 'unknown error';
      if (!res.headersSent)
        sendError(res, { code: 500, reason: 'InternalError', message: `Internal error occurred: ${message}` });
      else res.destroy();
    });
  };
}
