import type { LmOutObject, LmOutValue, LmResult } from './lm-result.ts';

/**
 * The two wire formats. v1: XML declared ISO-8859-1, `stat`/`code` attributes, Y/N booleans, repeated
 * tags for lists. v2: flat JSON `{"code":200, …data, "status":"ok"}` or `{"code":…, "message":…, "status":"fail"}`.
 * The HTTP status always equals `stat` / `code`.
 */

/** A rendered response body with its HTTP status and content type. */
export interface LmWireResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

const OK_MESSAGE = 'Command completed ok';

/** Renders a result as a v1 XML response. */
export function renderXml(result: LmResult): LmWireResponse {
  const head = '<?xml version="1.0" encoding="ISO-8859-1"?>\n';
  const contentType = 'text/xml; charset=ISO-8859-1';
  if (!result.ok) {
    return {
      status: result.stat,
      contentType,
      body: `${head}<Response stat="${result.stat}" code="fail">\n<Error>${escapeXml(result.message)}</Error>\n</Response>\n`,
    };
  }
  const inner = result.data === null ? OK_MESSAGE : `<Data>${xmlFields(result.data)}</Data>`;
  return {
    status: 200,
    contentType,
    body: `${head}<Response stat="200" code="ok">\n<Success>${inner}</Success>\n</Response>\n`,
  };
}

/** Renders a result as a v2 JSON response. */
export function renderJson(result: LmResult): LmWireResponse {
  const contentType = 'application/json';
  if (!result.ok) {
    return {
      status: result.stat,
      contentType,
      body: JSON.stringify({ code: result.stat, message: result.message, status: 'fail' }),
    };
  }
  const data = result.data === null ? { message: OK_MESSAGE } : jsonObject(result.data);
  return { status: 200, contentType, body: JSON.stringify({ code: 200, ...data, status: 'ok' }) };
}

function xmlFields(obj: LmOutObject): string {
  return Object.entries(obj)
    .map(([tag, value]) => xmlValue(tag, value))
    .join('');
}

function xmlValue(tag: string, value: LmOutValue): string {
  if (typeof value === 'boolean') return `<${tag}>${value ? 'Y' : 'N'}</${tag}>\n`;
  if (typeof value === 'number' || typeof value === 'string') return `<${tag}>${escapeXml(String(value))}</${tag}>\n`;
  if (isArray(value)) return value.map((item) => `<${tag}>\n${xmlFields(item)}</${tag}>\n`).join('');
  if (value.kind === 'strings' && typeof value.item === 'string' && Array.isArray(value.values)) {
    const items = (value.values as readonly string[])
      .map((v) => `<${value.item}>${escapeXml(v)}</${value.item}>\n`)
      .join('');
    return `<${tag}>\n${items}</${tag}>\n`;
  }
  return `<${tag}>\n${xmlFields(value as LmOutObject)}</${tag}>\n`;
}

function jsonObject(obj: LmOutObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) out[key] = jsonValue(value);
  return out;
}

function jsonValue(value: LmOutValue): unknown {
  if (typeof value !== 'object') return value;
  if (isArray(value)) return value.map((item) => jsonObject(item));
  if (value.kind === 'strings' && Array.isArray(value.values)) return [...(value.values as readonly string[])];
  return jsonObject(value as LmOutObject);
}

function isArray(value: LmOutValue): value is readonly LmOutObject[] {
  return Array.isArray(value);
}

/** Escapes text for XML element content and attributes. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
