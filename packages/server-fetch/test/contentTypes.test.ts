/** The fetch tool by content type: JSON, text, PDF, binary refusals, content encodings, and charset detection. */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { callFetch, connect, makePdf, routes, send, startServer, text } from './helpers.js';

describe('content types', () => {
  async function fetchBody(body: string | Buffer, contentType: string | undefined, args: Record<string, unknown> = {}) {
    await using server = await startServer(routes({ '/x': send(body, contentType) }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true });
    const url = `${server.origin}/x`;
    return { result: await callFetch(pair, { url, ...args }), url };
  }

  it('returns JSON as served, like the reference (no reformatting)', async () => {
    const json = '{"a":1,\n "b":[true,null],  "c":"\\u00e9"}';
    const { result, url } = await fetchBody(json, 'application/json; charset=utf-8');
    expect(text(result)).toBe(
      `Content type application/json; charset=utf-8 cannot be simplified to markdown, but here is the raw content:\nContents of ${url}:\n${json}`,
    );
  });
  it('returns text/plain as it is', async () => {
    const { result, url } = await fetchBody('line 1\n  line *2*', 'text/plain');
    expect(text(result)).toBe(
      `Content type text/plain cannot be simplified to markdown, but here is the raw content:\nContents of ${url}:\nline 1\n  line *2*`,
    );
  });
  it('treats a response without Content-Type as HTML, like the reference', async () => {
    const { result } = await fetchBody('<html><body><article><h2>Head</h2><p>Body text here.</p></article></body></html>', undefined);
    expect(text(result)).toContain('## Head');
  });
  it('extracts the text of a PDF', async () => {
    const { result, url } = await fetchBody(makePdf(['Quarterly report', 'Revenue grew by 12 percent.'], 'Q3 Report'), 'application/pdf');
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe(`Contents of ${url}:\nQuarterly report\nRevenue grew by 12 percent.`);
    expect(result.structuredContent).toMatchObject({ title: 'Q3 Report', contentType: 'application/pdf' });
  });
  it('recognises a PDF served as application/octet-stream by its signature', async () => {
    const { result } = await fetchBody(makePdf(['Signed PDF']), 'application/octet-stream');
    expect(text(result)).toContain('Signed PDF');
  });
  it('reports a broken PDF instead of garbage', async () => {
    const { result, url } = await fetchBody(Buffer.from('%PDF-1.4\nthis is not really a pdf'), 'application/pdf');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(new RegExp(`^Failed to fetch ${url}: the PDF could not be read`));
  });
  it('refuses binary content, stating type and size', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.alloc(2036, 7)]);
    const { result, url } = await fetchBody(png, 'image/png');
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      `Failed to fetch ${url}: the response is image/png (2 KiB), which is binary and cannot be shown as text; only HTML, text, JSON, XML and PDF are converted.`,
    );
  });
  it('refuses unlabelled binary content', async () => {
    const { result } = await fetchBody(Buffer.from([0, 1, 2, 3, 0, 5, 6, 7, 8]), 'application/octet-stream');
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('application/octet-stream (9 bytes), which is binary');
  });
  it('decompresses gzip responses', async () => {
    await using server = await startServer((_req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.setHeader('content-encoding', 'gzip');
      res.end(gzipSync('zipped words'));
    });
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true });
    expect(text(await callFetch(pair, { url: `${server.origin}/z` }))).toContain('\nzipped words');
  });
  it.each([
    ['gzip, gzip', (b: Buffer) => gzipSync(gzipSync(b))],
    ['deflate, br', (b: Buffer) => brotliCompressSync(deflateSync(b))],
    ['identity', (b: Buffer) => b],
  ])('decodes Content-Encoding: %s', async (encoding, encode) => {
    await using server = await startServer((_req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.setHeader('content-encoding', encoding);
      res.end(encode(Buffer.from('layered words')));
    });
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true });
    const url = `${server.origin}/z`;
    expect(text(await callFetch(pair, { url }))).toBe(
      `Content type text/plain cannot be simplified to markdown, but here is the raw content:\nContents of ${url}:\nlayered words`,
    );
  });
  it.each(['zstd', 'gzip, compress'])(
    'refuses Content-Encoding: %s, which it cannot decode, instead of showing compressed bytes',
    async (encoding) => {
      await using server = await startServer((_req, res) => {
        res.setHeader('content-type', 'text/plain');
        res.setHeader('content-encoding', encoding);
        res.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x05, 0x29, 0x00]));
      });
      await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true });
      const url = `${server.origin}/z`;
      const result = await callFetch(pair, { url });
      expect(result.isError).toBe(true);
      const coding = encoding.split(', ').at(-1);
      expect(text(result)).toBe(
        `Failed to fetch ${url}: the response is compressed with "${coding}" (Content-Encoding: ${encoding}), which cannot be decoded; only gzip, deflate and br can`,
      );
    },
  );
  it('refuses more than three stacked encodings', async () => {
    await using server = await startServer((_req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.setHeader('content-encoding', 'gzip, gzip, gzip, gzip');
      res.end(gzipSync(gzipSync(gzipSync(gzipSync('deep')))));
    });
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true });
    const result = await callFetch(pair, { url: `${server.origin}/z` });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('compressed 4 times over (Content-Encoding: gzip, gzip, gzip, gzip); at most 3 layers are decoded');
  });
});

describe('charsets', () => {
  // "Привет, мир! Съешь ещё этих мягких французских булок." in windows-1251, no charset anywhere.
  const cp1251 = Buffer.from(
    'cff0e8e2e5f22c20ece8f02120d1fae5f8fc20e5f9b820fdf2e8f520ecffe3eae8f520f4f0e0edf6f3e7f1eae8f520e1f3ebeeea2e',
    'hex',
  );
  // "日本語のテキストです。吾輩は猫である。名前はまだ無い。" in Shift_JIS.
  const sjis = Buffer.from(
    '93fa967b8cea82cc8365834c8358836782c582b781428ce1947982cd944c82c582a082e9814296bc914f82cd82dc82be96b382a28142',
    'hex',
  );

  async function fetchBytes(body: Buffer, contentType: string) {
    await using server = await startServer(routes({ '/p': send(body, contentType) }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true });
    return text(await callFetch(pair, { url: `${server.origin}/p` }));
  }
  const wrap = (bytes: Buffer, head = '') =>
    Buffer.concat([
      Buffer.from(`<html><head>${head}<title>t</title></head><body><article><p>`),
      bytes,
      Buffer.from('</p></article></body></html>'),
    ]);

  it('detects windows-1251 without a header or meta', async () => {
    expect(await fetchBytes(wrap(cp1251), 'text/html')).toContain('Привет, мир! Съешь ещё этих мягких французских булок.');
  });
  it('detects Shift_JIS without a header or meta', async () => {
    expect(await fetchBytes(wrap(sjis), 'text/html')).toContain('日本語のテキストです。吾輩は猫である。名前はまだ無い。');
  });
  it('uses the Content-Type charset', async () => {
    expect(await fetchBytes(wrap(cp1251), 'text/html; charset=windows-1251')).toContain('Привет, мир!');
  });
  it('uses <meta charset>', async () => {
    expect(await fetchBytes(wrap(sjis, '<meta charset="shift_jis">'), 'text/html')).toContain('吾輩は猫である');
  });
  it('honours a BOM over the header', async () => {
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('<html><body><article><p>Ünïcödé wins</p></article></body></html>', 'utf16le'),
    ]);
    expect(await fetchBytes(utf16, 'text/html; charset=iso-8859-1')).toContain('Ünïcödé wins');
  });
  it('decodes text/plain in windows-1251 without a charset', async () => {
    expect(await fetchBytes(cp1251, 'text/plain')).toContain('Привет, мир!');
  });
});
