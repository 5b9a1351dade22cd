import type { DriverKind } from '@portolan/desired-state';

/** One vendor object as the audit lists it: an id (`type/name`), a short detail, and its full content. */
export interface VendorObject {
  readonly id: string;
  readonly type: string;
  readonly name: string;
  readonly detail: string;
  readonly value: unknown;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';

/**
 * Lists the vendor objects of a driver's model (what `render` produces or `readBack` returns), whatever the
 * driver: vTM objects by `type/name`, LoadMaster virtual services, SubVSs, rules, certificates and bindings,
 * HAProxy files, backends, maps and certificates. Unknown shapes give an empty list, never an exception.
 */
export function listVendorObjects(kind: DriverKind, vendor: unknown): VendorObject[] {
  if (kind === 'vtm') return vtmObjects(vendor);
  if (kind === 'loadmaster') return loadmasterObjects(vendor);
  return haproxyObjects(vendor);
}

function vtmObjects(vendor: unknown): VendorObject[] {
  return arr(obj(vendor)['objects']).map((raw) => {
    const o = obj(raw);
    const type = str(o['type']);
    const name = str(o['name']);
    return { id: `${type}/${name}`, type, name, detail: vtmDetail(type, o), value: raw };
  });
}

function vtmDetail(type: string, o: Json): string {
  const basic = obj(obj(o['properties'])['basic']);
  switch (type) {
    case 'pools':
      return (
        arr(basic['nodes_table'])
          .map((n) => `${str(obj(n)['node'])}${str(obj(n)['state']) === 'active' ? '' : ` ${str(obj(n)['state'])}`}`)
          .join(', ') || '(no nodes)'
      );
    case 'virtual_servers':
      return `${str(basic['protocol'])} port ${str(basic['port'])} on ${arr(basic['listen_on_traffic_ips']).map(str).join(',')} pool ${str(basic['pool'])}${arr(basic['request_rules']).length > 0 ? ` rules ${arr(basic['request_rules']).map(str).join(',')}` : ''}`;
    case 'traffic_ip_groups':
      return arr(basic['ipaddresses']).map(str).join(', ');
    case 'rules':
      return `${str(o['text']).split('\n').length} line(s)`;
    default:
      return str(basic['note']);
  }
}

function loadmasterObjects(vendor: unknown): VendorObject[] {
  const v = obj(vendor);
  const out: VendorObject[] = [];
  const rs = (list: unknown): string =>
    arr(list)
      .map((r) => `${str(obj(r)['address'])}:${str(obj(r)['port'])}${obj(r)['enable'] === false ? ' disabled' : ''}`)
      .join(', ') || '(no real servers)';
  for (const raw of arr(v['virtualServices'])) {
    const vs = obj(raw);
    const nick = str(vs['nickname']);
    const params = obj(vs['params']);
    out.push({
      id: `vs/${nick}`,
      type: 'vs',
      name: nick,
      detail: `${str(vs['address'])}:${str(vs['port'])} ${str(params['VStype'])}${str(params['SSLAcceleration']) === '1' ? ' tls' : ''}${arr(vs['realServers']).length > 0 ? ` → ${rs(vs['realServers'])}` : ''}`,
      value: raw,
    });
    for (const sraw of arr(vs['subVss'])) {
      const sub = obj(sraw);
      const sn = str(sub['nickname']);
      out.push({
        id: `subvs/${sn}`,
        type: 'subvs',
        name: sn,
        detail: `in ${nick}: ${rs(sub['realServers'])}${arr(sub['rules']).length > 0 ? ` rules ${arr(sub['rules']).length}` : ' (default)'}`,
        value: sraw,
      });
    }
  }
  for (const raw of arr(v['rules']))
    out.push({
      id: `rule/${str(obj(raw)['name'])}`,
      type: 'rule',
      name: str(obj(raw)['name']),
      detail: str(obj(raw)['pattern']),
      value: raw,
    });
  for (const raw of arr(v['certificates']))
    out.push({
      id: `certificate/${str(obj(raw)['name'])}`,
      type: 'certificate',
      name: str(obj(raw)['name']),
      detail: '',
      value: raw,
    });
  for (const raw of arr(v['bindings']))
    out.push({
      id: `binding/${str(obj(raw)['target'])}`,
      type: 'binding',
      name: str(obj(raw)['target']),
      detail: `${str(obj(raw)['service'])} → ${rs(obj(raw)['realServers'])}`,
      value: raw,
    });
  return out;
}

function haproxyObjects(vendor: unknown): VendorObject[] {
  const v = obj(vendor);
  const out: VendorObject[] = [];
  for (const raw of arr(v['files'])) {
    const f = obj(raw);
    out.push({
      id: `file/${str(f['path'])}`,
      type: 'file',
      name: str(f['path']),
      detail: `${
        str(f['content'])
          .split('\n')
          .filter((l) => l !== '').length
      } line(s)`,
      value: raw,
    });
  }
  for (const raw of arr(v['backends'])) {
    const b = obj(raw);
    const slots = arr(b['slots']).map(obj);
    const used = slots.filter((s) => str(s['state']) !== 'maint');
    out.push({
      id: `backend/${str(b['name'])}`,
      type: 'backend',
      name: str(b['name']),
      detail: `${used.map((s) => `${str(s['address'])}:${str(s['port'])}${str(s['state']) === 'ready' ? '' : ` ${str(s['state'])}`}`).join(', ') || '(no servers)'} [${used.length}/${slots.length} slots]`,
      value: raw,
    });
  }
  for (const raw of arr(v['maps'])) {
    const m = obj(raw);
    out.push({
      id: `map/${str(m['path'])}`,
      type: 'map',
      name: str(m['path']),
      detail: `${arr(m['entries']).length} entr${arr(m['entries']).length === 1 ? 'y' : 'ies'}`,
      value: raw,
    });
  }
  for (const raw of arr(v['certificates'])) {
    const c = obj(raw);
    out.push({
      id: `certificate/${str(c['path'])}`,
      type: 'certificate',
      name: str(c['path']),
      detail: `fp ${str(c['fingerprint']).slice(0, 12)}`,
      value: raw,
    });
  }
  return out;
}
