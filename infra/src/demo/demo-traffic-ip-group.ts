import { StackServiceError } from '../errors.ts';

/** The demo vTM's default traffic IP group (fleet config `vtm.defaultTrafficIpGroup`) and the address it holds. */
export const demoTrafficIpGroup = { name: 'portolan-default', address: '127.0.0.1' } as const;

/**
 * Puts the default traffic IP group on the demo's vTM emulator, as an operator makes it on a real vTM before any
 * Ingress uses it (Portolan only binds virtual servers to it, never creates or changes it). Ingresses on it then
 * show its address in their status. A PUT, so a restarted demo finds the same group.
 */
export async function putDemoTrafficIpGroup(
  vtmPort: number,
  credentials: { readonly user: string; readonly password: string },
  host = '127.0.0.1',
): Promise<void> {
  const { user, password } = credentials;
  const url = `http://${host}:${vtmPort}/api/tm/8.3/config/active/traffic_ip_groups/${demoTrafficIpGroup.name}`;
  const reply = await fetch(url, {
    method: 'PUT',
    headers: {
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      properties: { basic: { ipaddresses: [demoTrafficIpGroup.address], note: 'demo: the default traffic IP group' } },
    }),
    signal: AbortSignal.timeout(5000),
  });
  if (!reply.ok)
    throw new StackServiceError(
      'STACK_START_FAILED',
      'vtm-emulator',
      `creating traffic IP group ${demoTrafficIpGroup.name} answered ${reply.status}: ${await reply.text()}`,
    );
}
