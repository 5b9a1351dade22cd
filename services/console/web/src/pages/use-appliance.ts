// One appliance's summary (head, pin, last apply, clusters), kept fresh by its live events.
import type { ApplianceSummary } from '../api/types.ts';
import { ApiError } from '../api/api-client.ts';
import { useApp, useLiveRefresh } from '../app-context.ts';
import { useResource, type Resource } from '../use-resource.ts';

/** The summary of `name`; a 404 error when the fleet config does not name it. */
export function useAppliance(name: string): Resource<ApplianceSummary> {
  const { api } = useApp();
  const r = useResource(`appliance:${name}`, async (signal) => {
    const { appliances } = await api.get<{ appliances: ApplianceSummary[] }>('/appliances', {}, signal);
    const a = appliances.find((x) => x.name === name);
    if (a === undefined) throw new ApiError(404, 'UnknownAppliance', `unknown appliance "${name}"`);
    return a;
  });
  useLiveRefresh((e) => e.type !== 'hold' && e.data.appliance === name, r.reload, 1000);
  return r;
}
