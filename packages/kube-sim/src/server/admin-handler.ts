import type { ServerResponse } from 'node:http';
import { isJsonObject } from '../core/json-value.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { FaultController, RequestFailure, WatchTarget } from './fault-controller.ts';
import { parseJsonBody, sendError, sendJson } from './http-io.ts';

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

/**
 * The admin endpoint (same bearer token): `POST /_sim/faults {action, ...}` drives the fault controls,
 * `GET /_sim/faults` reports them, `GET /_sim/changelog` returns the change log (the test oracle).
 */
export function handleAdminRequest(
  store: ObjectStore,
  faults: FaultController,
  action: string,
  method: string,
  bodyText: string,
  res: ServerResponse,
): void {
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
