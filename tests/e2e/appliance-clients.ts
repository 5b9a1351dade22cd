import https from 'node:https';

/** What a vTM REST call answered. */
export interface VtmReply {
  readonly status: number;
  readonly body: unknown;
}

/** A minimal operator's client for the vTM emulator's REST API 8.3 (what a person with curl would do). */
export class VtmClient {
  readonly url: string;
  readonly #auth: string;

  constructor(url: string, user: string, password: string) {
    this.url = url;
    this.#auth = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }

  /** GET/DELETE/PUT on `config/active/<path>`. */
  async call(method: 'GET' | 'DELETE' | 'PUT', path: string, body?: unknown): Promise<VtmReply> {
    const res = await fetch(`${this.url}/api/tm/8.3/config/active/${path}`, {
      method,
      headers: { authorization: this.#auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : text.startsWith('{') ? JSON.parse(text) : text };
  }

  /** Names of the objects of one type (`virtual_servers`, `pools`, `rules`, `traffic_ip_groups`, ...). */
  async names(type: string): Promise<string[]> {
    const r = await this.call('GET', type);
    return ((r.body as { children?: { name: string }[] }).children ?? []).map((c) => c.name).sort();
  }

  /** One object's properties, or null when it does not exist. */
  async get(type: string, name: string): Promise<Record<string, Record<string, unknown>> | null> {
    const r = await this.call('GET', `${type}/${encodeURIComponent(name)}`);
    if (r.status === 404) return null;
    return typeof r.body === 'string'
      ? { raw: { text: r.body } }
      : (r.body as { properties: Record<string, Record<string, unknown>> }).properties;
  }
}

/** A minimal operator's client for the LoadMaster emulator's v2 JSON API (self-signed HTTPS, like the appliance). */
export class LoadMasterClient {
  readonly url: string;
  readonly #user: string;
  readonly #password: string;

  constructor(url: string, user: string, password: string) {
    this.url = url;
    this.#user = user;
    this.#password = password;
  }

  /** One `POST /accessv2` command; resolves the flat JSON reply (`code`, `status`, data members). */
  call(cmd: string, params: Readonly<Record<string, string | number>> = {}): Promise<Record<string, unknown>> {
    const body = JSON.stringify({ cmd, apiuser: this.#user, apipass: this.#password, ...params });
    const u = new URL(`${this.url}/accessv2`);
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          rejectUnauthorized: false,
          agent: false,
          timeout: 5000,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => {
            try {
              resolve(JSON.parse(text) as Record<string, unknown>);
            } catch (e) {
              reject(new Error(`${cmd}: not JSON (HTTP ${res.statusCode}): ${text.slice(0, 200)}`, { cause: e }));
            }
          });
        },
      );
      req.once('timeout', () => req.destroy(new Error(`${cmd} timed out`)));
      req.once('error', reject);
      req.end(body);
    });
  }

  /** Every virtual service and SubVS as `listvs` returns them. */
  async listVs(): Promise<LoadMasterVs[]> {
    const r = await this.call('listvs');
    return (r.VS as LoadMasterVs[] | undefined) ?? [];
  }
}

/** The fields of a `listvs` entry the tests look at. */
export interface LoadMasterVs {
  readonly Index: number;
  readonly NickName?: string;
  readonly VSAddress?: string;
  readonly VSPort?: string;
  readonly MasterVSID?: number;
  readonly Rs?: readonly {
    readonly RsIndex: number;
    readonly Addr: string;
    readonly Port: number;
    readonly Enable?: boolean;
  }[];
  readonly SubVS?: readonly { readonly VSIndex: number; readonly RsIndex: number; readonly Name?: string }[];
}
