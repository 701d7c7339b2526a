/**
 * Bytes → text. The encoding comes from, in order: a byte-order mark, the `charset` of the
 * `Content-Type` header, a `<meta charset>` / `http-equiv` declaration (HTML encoding sniffing
 * per WHATWG, by `encoding-sniffer`); with none of these, valid UTF-8 stays UTF-8 and anything else
 * is identified by `chardet` (so a windows-1251 or Shift_JIS page without a header is readable).
 */

function charsetOf(contentType: string): string | undefined {
  const m = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType);
  return m?.[2];
}

function supported(label: string | undefined | null): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}

/**
 * The bytes outside `<…>` (markup is ASCII and only dilutes the statistics the detector relies on).
 * Falls back to all bytes when that leaves too little to judge.
 */
function textBytes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.min(bytes.length, 64 * 1024));
  let n = 0;
  let inTag = false;
  for (let i = 0; i < bytes.length && n < out.length; i++) {
    const b = bytes[i]!;
    if (b === 0x3c) inTag = true;
    else if (b === 0x3e && inTag) inTag = false;
    else if (!inTag) out[n++] = b;
  }
  return n >= 32 ? out.subarray(0, n) : bytes;
}

/** The bytes as UTF-8, or `undefined` when they are not valid UTF-8. */
function strictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

export interface Decoded {
  text: string;
  /** The WHATWG name of the encoding used, e.g. `utf-8`, `windows-1251`, `shift_jis`. */
  encoding: string;
  /** Where it came from. */
  source: 'bom' | 'header' | 'meta' | 'utf8' | 'detected' | 'default';
}

export async function decodeBody(bytes: Uint8Array, contentType: string): Promise<Decoded> {
  const [{ Sniffer, ResultType }, chardet] = await Promise.all([import('encoding-sniffer/sniffer'), import('chardet')]);
  const sniffer = new Sniffer({ transportLayerEncodingLabel: charsetOf(contentType), defaultEncoding: 'utf-8', maxBytes: 1024 });
  sniffer.write(bytes.subarray(0, 1024));
  const sniffed = supported(sniffer.encoding);
  let encoding: string | undefined;
  let source: Decoded['source'];
  switch (sniffer.resultType) {
    case ResultType.BOM:
    case ResultType.XML_PREFIX:
      source = 'bom';
      encoding = sniffed;
      break;
    case ResultType.PASSED:
      source = 'header';
      encoding = sniffed;
      break;
    case ResultType.META_TAG:
    case ResultType.XML_ENCODING:
      source = 'meta';
      encoding = sniffed;
      break;
    default:
      source = 'default';
  }
  if (!encoding) {
    // Valid UTF-8 (most unlabelled pages): keep the text of the check rather than decoding twice.
    const utf8 = strictUtf8(bytes);
    if (utf8 !== undefined) return { text: utf8, encoding: 'utf-8', source: 'utf8' };
    const detected = supported(chardet.detect(textBytes(bytes)));
    encoding = detected ?? 'windows-1252';
    source = detected ? 'detected' : 'default';
  }
  return { text: new TextDecoder(encoding).decode(bytes), encoding, source };
}
