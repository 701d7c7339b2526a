/**
 * `data:` URIs decoded in-process, after the WHATWG fetch "data: URL processor" (what the reference's
 * `fetch(dataUri)` does), without the network and with a size limit. Exports (stable): `decodeDataUri`, `DataUri`.
 */

export interface DataUri {
  /** The declared media type without `;base64` (`text/plain;charset=US-ASCII` when none is given). */
  mimeType: string;
  bytes: Uint8Array;
}

const BASE64_SUFFIX = /;[\t\n\f\r ]*base64[\t\n\f\r ]*$/i;
const ASCII_WHITESPACE = /[\t\n\f\r ]+/g;
const BASE64_BODY = /^[A-Za-z0-9+/]*$/;

/** Percent-decodes `input` as the URL standard does: UTF-8 bytes, `%XX` becomes byte XX, a stray `%` stays. */
function percentDecode(input: string): Uint8Array {
  const bytes = Buffer.from(input, 'utf8');
  if (!bytes.includes(0x25)) return bytes;
  const out = Buffer.allocUnsafe(bytes.length);
  const hex = (b: number | undefined) =>
    b === undefined ? -1 : b >= 0x30 && b <= 0x39 ? b - 0x30 : (b | 0x20) >= 0x61 && (b | 0x20) <= 0x66 ? (b | 0x20) - 0x57 : -1;
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const hi = b === 0x25 ? hex(bytes[i + 1]) : -1;
    const lo = hi >= 0 ? hex(bytes[i + 2]) : -1;
    if (lo >= 0) {
      out[n++] = hi * 16 + lo;
      i += 2;
    } else {
      out[n++] = b;
    }
  }
  return out.subarray(0, n);
}

/** "Forgiving base64": ASCII whitespace ignored, padding optional; anything else is an error. */
function forgivingBase64(input: string): Uint8Array {
  let data = input.replace(ASCII_WHITESPACE, '');
  if (data.length % 4 === 0) data = data.replace(/={1,2}$/, '');
  if (data.length % 4 === 1 || !BASE64_BODY.test(data)) throw new Error('the data: URI is not valid base64');
  return Buffer.from(data, 'base64');
}

/**
 * Decodes a `data:[<mediatype>][;base64],<data>` URI. Throws an `Error` fit to show the model when it is
 * malformed, a `RangeError` when it holds more than `maxBytes` bytes (checked before decoding as far as the
 * length allows).
 */
export function decodeDataUri(uri: string, maxBytes: number): DataUri {
  if (!/^data:/i.test(uri)) throw new Error('not a data: URI');
  const hash = uri.indexOf('#');
  const rest = uri.slice(5, hash === -1 ? undefined : hash);
  const comma = rest.indexOf(',');
  if (comma === -1) throw new Error('the data: URI has no comma before its data');
  const body = rest.slice(comma + 1);
  // Percent-encoding triples a byte at most; base64 needs 4 characters per 3 bytes.
  if (body.length > maxBytes * 3 + 4) throw new RangeError(`the data: URI holds more than ${maxBytes} bytes`);
  let mimeType = rest.slice(0, comma).trim();
  const base64 = BASE64_SUFFIX.test(mimeType);
  if (base64) mimeType = mimeType.replace(BASE64_SUFFIX, '');
  let bytes = percentDecode(body);
  if (base64) bytes = forgivingBase64(Buffer.from(bytes).toString('latin1'));
  if (bytes.byteLength > maxBytes) throw new RangeError(`the data: URI holds more than ${maxBytes} bytes`);
  if (mimeType.startsWith(';')) mimeType = `text/plain${mimeType}`;
  if (!/^[\w!#$&^.+-]+\/[\w!#$&^.+-]+/.test(mimeType)) mimeType = 'text/plain;charset=US-ASCII';
  return { mimeType, bytes };
}
