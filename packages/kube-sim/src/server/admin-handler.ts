import type { ServerResponse } from 'node:http';
import { isJsonObject } from '../core/json-value.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { FaultController, RequestFailure, WatchTarget } from './fault-controller.ts';
import { parseJsonBody, sendError, sendJson } from './http-io.ts';
import type { ServiceAccountTokens } from './service-account-tokens.ts';

function target(body: Record<string, unknown>): WatchTarget {
  return typeof body['resource'] === 'string' ? { resource: body['resource'] } : {};
}

function applyFault(faults: FaultController, body: Record<string, unknown>): unknown {
  switch (body['action']) {
    case 'compact':
      faults.compactHistory();
      return {};
    case 'stall-watches':
      faults.stallWatches();
      return {};
    case 'resume-watches':
      faults.resumeWatches();
      return {};
    case 'end-watches':
      return { watches: faults.endWatches({ ...target(body), reset: body['reset'] === true }) };
    case 'watch-gone':
      return { watches: faults.sendWatchGone({ ...target(body), close: body['close'] !== false }) };
    case 'garbled-line':
      return { watches: faults.sendGarbledLine(target(body)) };
    case 'garble-next-events':
      return { watches: faults.garbleNextEvents(Number(body['count'] ?? 1), target(body)) };
    case 'fail-requests':
      faults.failRequests(body as unknown as RequestFailure);
      return {};
    case 'lag-zero-reads':
      faults.lagZeroResourceVersionReads(body['enabled'] !== false);
      return {};
    case 'hide-from-lists':
      faults.hideFromLists(
        String(body['resource'] ?? ''),
        typeof body['namespace'] === 'string' ? body['namespace'] : '',
      );
      return {};
    case 'max-object-bytes':
      faults.maxObjectBytes = Number(body['bytes']);
      return {};
    case 'clear':
      faults.clear();
      return {};
    default:
      return null;
  }
}

/** `POST /_sim/tokens {namespace, name}`: a ServiceAccount token, answered with the user it authenticates as. */
function issueToken(tokens: ServiceAccountTokens, bodyText: string, res: ServerResponse): void {
  const body = parseJsonBody(bodyText);
  if (!body.ok) return sendError(res, body.error);
  const namespace = isJsonObject(body.value) ? body.value['namespace'] : undefined;
  const name = isJsonObject(body.value) ? body.value['name'] : undefined;
  if (typeof namespace !== 'string' || namespace === '' || typeof name !== 'string' || name === '')
    return sendError(res, { code: 400, reason: 'BadRequest', message: 'a token needs a namespace and a name' });
  const token = tokens.issue(namespace, name);
  sendJson(res, 201, { token, user: tokens.userOf(token)?.name });
}

/**
 * The admin endpoint (the admin token only): `POST /_sim/faults {action, ...}` drives the fault controls,
 * `GET /_sim/faults` reports them, `GET /_sim/changelog` returns the change log (the test oracle),
 * `POST /_sim/tokens {namespace, name}` issues a ServiceAccount token.
 */
export function handleAdminRequest(
  ctx: { readonly store: ObjectStore; readonly faults: FaultController; readonly tokens: ServiceAccountTokens },
  action: string,
  method: string,
  bodyText: string,
  res: ServerResponse,
): void {
  const { store, faults } = ctx;
  if (action === 'tokens' && method === 'POST') return issueToken(ctx.tokens, bodyText, res);
  if (action === 'changelog' && method === 'GET')
    return sendJson(res, 200, { resourceVersion: String(store.resourceVersion), items: store.changeLog });
  if (action === 'faults' && method === 'GET') {
    return sendJson(res, 200, {
      openWatches: faults.openWatches,
      watchesStalled: faults.watchesStalled,
      compactedRevision: store.compactedRevision,
      resourceVersion: store.resourceVersion,
      maxObjectBytes: faults.maxObjectBytes,
    });
  }
  if (action === 'faults' && method === 'POST') {
    const body = parseJsonBody(bodyText);
    if (!body.ok) return sendError(res, body.error);
    const result = isJsonObject(body.value) ? applyFault(faults, body.value) : null;
    if (result === null) return sendError(res, { code: 400, reason: 'BadRequest', message: 'unknown fault action' });
    return sendJson(res, 200, result);
  }
  sendError(res, { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' });
}
