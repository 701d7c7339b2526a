/** Response bodies, decoded and capped: read whole (`get`) or streamed (`request`). */
import type { Readable } from 'node:stream';
import { decodeBody } from './decode.js';
import { HttpError, raiseHint } from './errors.js';
import { formatBytes } from './format.js';

interface BodyLimit {
  /** The largest decoded body. */
  maxBytes: number;
  /** The flag that raises the limit, named in the error. */
  flag?: string | undefined;
}

function overLimit({ maxBytes, flag }: BodyLimit): HttpError {
  return new HttpError('too-large', `the response is over the ${formatBytes(maxBytes)} limit${raiseHint(flag, 'it')}`);
}

export interface ReadOptions extends BodyLimit {
  /** Keep the first `maxBytes` instead of failing. */
  truncate?: boolean | undefined;
  /** Called as the body arrives: decoded bytes so far, and the declared length when it counts the same bytes. */
  onBody?: ((received: number, total: number | undefined) => void) | undefined;
}

/**
 * The whole decoded body of a response with these (flattened) headers. Over the limit it fails (as soon
 * as a `Content-Length` says so), or, with `truncate`, keeps the first `maxBytes`. `raw` is destroyed after.
 */
export async function readBody(raw: Readable, headers: Record<string, string>, options: ReadOptions): Promise<Buffer> {
  const { maxBytes } = options;
  const truncate = options.truncate ?? false;
  const encoding = headers['content-encoding'] ?? '';
  const declared = Number(headers['content-length']);
  const { stream, destroy } = decodeBody(raw, encoding);
  if (!truncate && !encoding && Number.isFinite(declared) && declared > maxBytes) {
    destroy();
    throw new HttpError(
      'too-large',
      `the response is ${formatBytes(declared)}, over the ${formatBytes(maxBytes)} limit${raiseHint(options.flag, 'it')}`,
    );
  }
  // The declared length counts encoded bytes; progress counts decoded ones, so it has a total only when they agree.
  const total = !encoding && Number.isFinite(declared) ? declared : undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > maxBytes) {
        if (!truncate) throw overLimit(options);
        chunks.push(chunk.subarray(0, chunk.length - (received - maxBytes)));
        break;
      }
      chunks.push(chunk);
      options.onBody?.(received, total);
    }
  } finally {
    destroy();
  }
  return Buffer.concat(chunks);
}

export interface StreamOptions extends BodyLimit {
  /** What an error while reading becomes (the deadline's `failure`). */
  failure(error: unknown): unknown;
  /** Called once the body is over: read to the end, failed, returned early or cancelled (may run more than once). */
  onEnd(): void;
}

export interface StreamedBody {
  body: AsyncIterableIterator<Uint8Array>;
  /** Drops the rest of the body and releases the connection. */
  cancel(): Promise<void>;
}

/** The decoded body as it arrives, failing past `maxBytes`. Throws `HttpError('encoding')` at once for an unknown coding. */
export function streamBody(raw: Readable, contentEncoding: string, options: StreamOptions): StreamedBody {
  const { stream, destroy } = decodeBody(raw, contentEncoding);
  const release = () => {
    destroy();
    options.onEnd();
  };
  async function* iterate(): AsyncGenerator<Uint8Array> {
    let received = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > options.maxBytes) throw overLimit(options);
        yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      }
    } catch (error) {
      throw options.failure(error);
    } finally {
      release();
    }
  }
  const inner = iterate();
  const body: AsyncIterableIterator<Uint8Array> = {
    next: () => inner.next(),
    async return(value?: unknown) {
      release();
      return inner.return(value as undefined);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return {
    body,
    async cancel() {
      release();
      await inner.return(undefined);
    },
  };
}
