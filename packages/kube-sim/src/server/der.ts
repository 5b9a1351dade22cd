/** Minimal DER (ASN.1) encoders: just what an X.509 certificate needs. */

function lengthBytes(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** A DER element with the given tag byte and content. */
export function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), lengthBytes(body.length), body]);
}

/** SEQUENCE. */
export const sequence = (...items: Buffer[]): Buffer => der(0x30, ...items);

/** SET. */
export const set = (...items: Buffer[]): Buffer => der(0x31, ...items);

/** A non-negative INTEGER from big-endian bytes. */
export function integer(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && ((b[1] ?? 0) & 0x80) === 0) b = b.subarray(1);
  return der(0x02, ((b[0] ?? 0) & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

/** OBJECT IDENTIFIER from dotted text. */
export function oid(text: string): Buffer {
  const parts = text.split('.').map(Number);
  const bytes: number[] = [40 * (parts[0] ?? 0) + (parts[1] ?? 0)];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [];
    let n = part;
    do {
      chunk.unshift(n & 0x7f);
      n = Math.floor(n / 128);
    } while (n > 0);
    bytes.push(...chunk.map((c, i) => (i < chunk.length - 1 ? c | 0x80 : c)));
  }
  return der(0x06, Buffer.from(bytes));
}

/** BOOLEAN. */
export const boolean = (value: boolean): Buffer => der(0x01, Buffer.from([value ? 0xff : 0]));

/** OCTET STRING. */
export const octetString = (content: Buffer): Buffer => der(0x04, content);

/** BIT STRING with a given number of unused trailing bits. */
export const bitString = (content: Buffer, unusedBits = 0): Buffer => der(0x03, Buffer.from([unusedBits]), content);

/** UTF8String. */
export const utf8String = (text: string): Buffer => der(0x0c, Buffer.from(text, 'utf8'));

/** UTCTime before 2050, GeneralizedTime from 2050 on (RFC 5280 §4.1.2.5). */
export function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return date.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(`${iso.slice(2)}Z`)) : der(0x18, Buffer.from(`${iso}Z`));
}

/** A context-specific tag: constructed (EXPLICIT) or primitive (IMPLICIT). */
export const contextTag = (n: number, constructed: boolean, ...content: Buffer[]): Buffer =>
  der((constructed ? 0xa0 : 0x80) | n, ...content);
