/** decode.ts and body.ts: bodies decoded, capped after decoding, read whole or streamed (loopback only). */
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readBody, streamBody } from '../src/body.js';
import { decodeBody } from '../src/decode.js';
import { HttpError } from '../src/errors.js';
import { loopback, rawGet } from './loopback.js';

/** A server answering `/<path>` with `bodies[path]` and its headers, in 1000-byte writes when `chunked`. */
function serve(bodies: Record<string, { body: Buffer | string; headers?: Record<string, string>; chunked?: boolean }>) {
  return loopback((req, res) => {
    const entry = bodies[(req.url ?? '/').slice(1)];
    if (!entry) return res.writeHead(404).end();
    res.writeHead(200, entry.headers ?? {});
    if (entry.chunked) {
      const data = Buffer.from(entry.body);
      for (let i = 0; i < data.length; i += 1000) res.write(data.subarray(i, i + 1000));
      res.end();
    } else res.end(entry.body);
  });
}

async function get(origin: string, path: string) {
  const response = await rawGet(`${origin}/${path}`);
  return { raw: response, headers: response.headers as Record<string, string> };
}

async function collect(body: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of body) parts.push(chunk);
  return Buffer.concat(parts).toString();
}

describe('decodeBody', () => {
  it('decodes stacked codings, outermost last, and leaves identity alone', async () => {
    const text = 'hello, decoded world';
    await using server = await serve({
      stacked: { body: brotliCompressSync(gzipSync(text)), headers: { 'content-encoding': 'gzip, br' } },
      identity: { body: text, headers: { 'content-encoding': 'identity' } },
    });
    for (const path of ['stacked', 'identity']) {
      const { raw, headers } = await get(server.origin, path);
      const { stream, destroy } = decodeBody(raw, headers['content-encoding'] ?? '');
      expect(await collect(stream)).toBe(text);
      destroy();
    }
  });

  it('refuses a coding it cannot decode and more than three layers, destroying the body', async () => {
    await using server = await serve({ x: { body: 'x' } });
    const { raw } = await get(server.origin, 'x');
    expect(() => decodeBody(raw, 'zstd')).toThrow(
      new HttpError(
        'encoding',
        'the response is compressed with "zstd" (Content-Encoding: zstd), which cannot be decoded; only gzip, deflate and br can',
      ),
    );
    expect(raw.destroyed).toBe(true);
    const second = await get(server.origin, 'x');
    expect(() => decodeBody(second.raw, 'gzip, gzip, gzip, gzip')).toThrow(
      'the response is compressed 4 times over (Content-Encoding: gzip, gzip, gzip, gzip); at most 3 layers are decoded',
    );
  });
});

describe('readBody', () => {
  it('fails on a declared length over the limit before reading, naming the flag', async () => {
    await using server = await serve({ big: { body: 'x'.repeat(5000), headers: { 'content-length': '5000' } } });
    const { raw, headers } = await get(server.origin, 'big');
    await expect(readBody(raw, headers, { maxBytes: 1024, flag: '--max-bytes' })).rejects.toThrow(
      new HttpError('too-large', 'the response is 4.9 KiB, over the 1 KiB limit (raise it with --max-bytes)'),
    );
    expect(raw.destroyed).toBe(true);
  });

  it('caps the decoded bytes: a small gzip that inflates past the limit fails', async () => {
    const bomb = gzipSync(Buffer.alloc(1024 * 1024));
    expect(bomb.length).toBeLessThan(2048);
    await using server = await serve({ bomb: { body: bomb, headers: { 'content-encoding': 'gzip' } } });
    const { raw, headers } = await get(server.origin, 'bomb');
    await expect(readBody(raw, headers, { maxBytes: 64 * 1024 })).rejects.toThrow(
      new HttpError('too-large', 'the response is over the 64 KiB limit'),
    );
  });

  it('with truncate, keeps exactly the first maxBytes', async () => {
    await using server = await serve({ long: { body: 'abcdefghij'.repeat(500) } });
    const { raw, headers } = await get(server.origin, 'long');
    const body = await readBody(raw, headers, { maxBytes: 1234, truncate: true });
    expect(body.length).toBe(1234);
    expect(body.toString()).toBe('abcdefghij'.repeat(500).slice(0, 1234));
  });

  it('reports progress in decoded bytes, with a total only when the declared length counts the same bytes', async () => {
    const text = 'y'.repeat(3000);
    await using server = await serve({
      plain: { body: text, headers: { 'content-length': '3000' }, chunked: true },
      gzip: { body: gzipSync(text), headers: { 'content-encoding': 'gzip' } },
    });
    for (const [path, total] of [
      ['plain', 3000],
      ['gzip', undefined],
    ] as const) {
      const seen: [number, number | undefined][] = [];
      const { raw, headers } = await get(server.origin, path);
      const body = await readBody(raw, headers, { maxBytes: 10_000, onBody: (received, of) => seen.push([received, of]) });
      expect(body.toString()).toBe(text);
      expect(seen.at(-1)).toEqual([3000, total]);
      expect(seen.every(([, of]) => of === total)).toBe(true);
    }
  });
});

describe('streamBody', () => {
  it('yields the decoded body and ends the request once read', async () => {
    await using server = await serve({ gz: { body: gzipSync('streamed text'), headers: { 'content-encoding': 'gzip' } } });
    const { raw, headers } = await get(server.origin, 'gz');
    let ended = 0;
    const { body } = streamBody(raw, headers['content-encoding'] ?? '', { maxBytes: 100, failure: (e) => e, onEnd: () => ended++ });
    expect(await collect(body)).toBe('streamed text');
    expect(ended).toBeGreaterThan(0);
  });

  it('fails past maxBytes, through the failure mapping', async () => {
    await using server = await serve({ big: { body: 'z'.repeat(5000), chunked: true } });
    const { raw } = await get(server.origin, 'big');
    const seen: unknown[] = [];
    const { body } = streamBody(raw, '', {
      maxBytes: 2048,
      flag: '--max-bytes',
      failure: (e) => {
        seen.push(e);
        return e;
      },
      onEnd: () => {},
    });
    await expect(collect(body)).rejects.toThrow(
      new HttpError('too-large', 'the response is over the 2 KiB limit (raise it with --max-bytes)'),
    );
    expect(seen).toHaveLength(1);
    expect(raw.destroyed).toBe(true);
  });

  it('cancel() drops the rest of the body and ends the request', async () => {
    await using server = await serve({ long: { body: 'w'.repeat(50_000), chunked: true } });
    const { raw } = await get(server.origin, 'long');
    let ended = 0;
    const streamed = streamBody(raw, '', { maxBytes: 1_000_000, failure: (e) => e, onEnd: () => ended++ });
    const first = await streamed.body.next();
    expect(first.done).toBe(false);
    await streamed.cancel();
    expect(ended).toBeGreaterThan(0);
    expect(raw.destroyed).toBe(true);
    expect((await streamed.body.next()).done).toBe(true);
  });

  it('refuses an unknown coding at once', async () => {
    await using server = await serve({ x: { body: 'x' } });
    const { raw } = await get(server.origin, 'x');
    expect(() => streamBody(raw, 'compress', { maxBytes: 10, failure: (e) => e, onEnd: () => {} })).toThrow(HttpError);
  });
});
