/** Content-Encoding decoding: gzip, deflate and br, at most three layers stacked. */
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { HttpError } from './errors.js';

/** Content codings applied on top of each other that are decoded at most (`gzip, gzip` is two). */
const MAX_CODINGS = 3;

const DECODERS = new Map<string, () => Transform>([
  ['gzip', createGunzip],
  ['x-gzip', createGunzip],
  ['deflate', createInflate],
  ['br', createBrotliDecompress],
]);

/** The decoders for a `Content-Encoding` list, outermost (last applied) first; throws for a coding Node cannot decode. */
function decoders(header: string): Transform[] {
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  if (codings.length > MAX_CODINGS) {
    throw new HttpError(
      'encoding',
      `the response is compressed ${codings.length} times over (Content-Encoding: ${header}); at most ${MAX_CODINGS} layers are decoded`,
    );
  }
  const unknown = codings.find((c) => !DECODERS.has(c));
  if (unknown) {
    throw new HttpError(
      'encoding',
      `the response is compressed with "${unknown}" (Content-Encoding: ${header}), which cannot be decoded; only gzip, deflate and br can`,
    );
  }
  return codings.reverse().map((c) => (DECODERS.get(c) as () => Transform)());
}

export interface Decoded {
  /** The decoded body (`raw` itself when nothing is to decode). */
  stream: Readable;
  /** Destroys the decoders and the raw body (idempotent). */
  destroy(): void;
}

/**
 * `raw` decoded as its `Content-Encoding` header says. Errors of `raw` after this are for the decoded
 * stream to report (destroying an unfinished undici body makes it emit "Request aborted"; nobody needs
 * to hear it). Throws `HttpError('encoding')`, with `raw` destroyed, for codings it cannot decode.
 */
export function decodeBody(raw: Readable, contentEncoding: string): Decoded {
  raw.on('error', () => {});
  let decode: Transform[];
  try {
    decode = decoders(contentEncoding);
  } catch (error) {
    raw.destroy();
    throw error;
  }
  const stream: Readable = decode.length > 0 ? (pipeline([raw, ...decode], () => {}) as unknown as Readable) : raw;
  return {
    stream,
    destroy() {
      stream.destroy();
      for (const d of decode) d.destroy();
      raw.destroy();
    },
  };
}
