import { once } from 'node:events';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_USER_AGENT_AUTONOMOUS, DEFAULT_USER_AGENT_MANUAL } from '../src/constants.js';
import { callFetch, connect, makePdf, redirect, routes, send, startServer, text } from './helpers.js';

const DESCRIPTION =
  'Fetches a URL from the internet and optionally extracts its contents as markdown.\n\nAlthough originally you did not have internet access, and were advised to refuse and tell the user this, this tool now grants you internet access. Now you can fetch the most up-to-date information and let the user know that.';

/** A page whose Markdown is exactly `body` (one paragraph of plain words). */
function paragraphPage(body: string): string {
  return `<html><head><title>T</title></head><body><article><p>${body}</p></article></body></html>`;
}

describe('listing', () => {
  it('lists the fetch tool with the reference name, description, defaults and limits, plus title and honest annotations', async () => {
    await using pair = await connect();
    const { tools } = await pair.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['fetch']);
    const tool = tools[0]!;
    expect(tool.description).toBe(DESCRIPTION);
    expect(tool.title).toBe('Fetch');
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: true });
    const props = tool.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(tool.inputSchema.required).toEqual(['url']);
    expect(props.url).toMatchObject({ type: 'string', format: 'uri', minLength: 1, description: 'URL to fetch' });
    expect(props.max_length).toMatchObject({
      type: 'integer',
      default: 5000,
      minimum: 1,
      maximum: 999999,
      description: 'Maximum number of characters to return.',
    });
    // The reference's exclusiveMinimum/exclusiveMaximum (same accepted values) are refused by Gemini's schema subset.
    expect(props.max_length).not.toHaveProperty('exclusiveMinimum');
    expect(props.max_length).not.toHaveProperty('exclusiveMaximum');
    expect(props.start_index).toMatchObject({ type: 'integer', default: 0, minimum: 0 });
    expect(props.raw).toMatchObject({ type: 'boolean', default: false });
    // Ours, optional: the download a continuation continues (the reference's four stay as they are).
    expect(props.download_id).toEqual({ type: 'string', description: expect.stringMatching(/^With start_index: the downloadId/) });
    expect(tool.inputSchema.required).toEqual(['url']);
    expect(Object.keys((tool.outputSchema?.properties ?? {}) as object).sort()).toEqual(
      ['contentType', 'downloadId', 'finalUrl', 'nextStartIndex', 'status', 'title', 'totalLength', 'url'].sort(),
    );
  });

  it('lists the fetch prompt with its required url argument', async () => {
    await using pair = await connect();
    const { prompts } = await pair.client.listPrompts();
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({
      name: 'fetch',
      description: 'Fetch a URL and extract its contents as markdown',
      arguments: [{ name: 'url', description: 'URL to fetch', required: true }],
    });
  });

  it('identifies as mcp-fetch', async () => {
    await using pair = await connect();
    expect(pair.client.getServerVersion()?.name).toBe('mcp-fetch');
  });
});

describe('input validation', () => {
  it.each([
    [{}, 'URL is required'],
    [{ url: 'not a url' }, 'Invalid URL'],
    [{ url: 'https://example.com/', max_length: 0 }, 'max_length'],
    [{ url: 'https://example.com/', max_length: 1_000_000 }, 'max_length'],
    [{ url: 'https://example.com/', max_length: 0.5 }, 'max_length'],
    [{ url: 'https://example.com/', start_index: -1 }, 'start_index'],
    [{ url: 'https://example.com/', raw: 'yes' }, 'raw'],
  ])('%j is refused naming the problem', async (args, expected) => {
    await using pair = await connect();
    const result = await callFetch(pair, args);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(expected);
  });

  it('refuses schemes other than http and https', async () => {
    await using pair = await connect();
    const result = await callFetch(pair, { url: 'file:///etc/passwd' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Failed to fetch file:///etc/passwd: only http and https URLs can be fetched, not file');
  });
});

describe('pagination (the reference texts, counted in code points)', () => {
  const body = `${'a'.repeat(6000)} ${'b'.repeat(5999)}`; // 12 000 characters of Markdown

  async function page(args: Record<string, unknown>, content = body) {
    await using server = await startServer(routes({ '/doc': send(paragraphPage(content), 'text/html') }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true });
    const url = `${server.origin}/doc`;
    const result = await callFetch(pair, { url, ...args });
    return { result, url, header: `Contents of ${url}:\n` };
  }

  it('first 5000 characters with the truncation notice', async () => {
    const { result, header } = await page({});
    expect(text(result)).toBe(
      `${header}${'a'.repeat(5000)}\n\n<error>Content truncated. Call the fetch tool with a start_index of 5000 to get more content.</error>`,
    );
    expect(result.structuredContent).toMatchObject({
      totalLength: 12000,
      nextStartIndex: 5000,
      status: 200,
      contentType: 'text/html',
      title: 'T',
    });
  });
  it('the last part has no notice', async () => {
    const { result, header } = await page({ start_index: 10000 });
    expect(text(result)).toBe(`${header}${'b'.repeat(2000)}`);
    expect(result.structuredContent).toMatchObject({ nextStartIndex: null });
  });
  it('a part that ends exactly at the end has no notice', async () => {
    const { result } = await page({ start_index: 7000, max_length: 5000 });
    expect(text(result)).not.toContain('Content truncated');
  });
  it('past the end: "No more content available."', async () => {
    const { result, header } = await page({ start_index: 12000 });
    expect(text(result)).toBe(`${header}<error>No more content available.</error>`);
    expect(result.isError).toBeFalsy();
  });
  it('counts an emoji as one character, as Python does', async () => {
    const { result, header } = await page({ max_length: 3 }, '😀😀😀😀');
    expect(text(result)).toBe(
      `${header}😀😀😀\n\n<error>Content truncated. Call the fetch tool with a start_index of 3 to get more content.</error>`,
    );
  });
  it('normalises the URL like pydantic AnyUrl (lower-case host, trailing slash)', async () => {
    await using server = await startServer(routes({ '/': send(paragraphPage('home'), 'text/html') }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true });
    const result = await callFetch(pair, { url: `HTTP://127.0.0.1:${server.port}` });
    expect(text(result).startsWith(`Contents of http://127.0.0.1:${server.port}/:\n`)).toBe(true);
    expect(result.structuredContent).toMatchObject({ url: `http://127.0.0.1:${server.port}/` });
  });
});

describe('page cache', () => {
  it('serves start_index continuations without downloading again; a fresh call (start_index 0) downloads', async () => {
    await using server = await startServer(routes({ '/doc': send(paragraphPage('x'.repeat(300)), 'text/html') }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`] });
    const url = `${server.origin}/doc`;
    await callFetch(pair, { url, max_length: 100 });
    const second = await callFetch(pair, { url, max_length: 100, start_index: 100 });
    const third = await callFetch(pair, { url, max_length: 100, start_index: 200 });
    expect(text(second)).toContain('start_index of 200');
    expect(text(third)).toBe(`Contents of ${url}:\n${'x'.repeat(100)}`);
    expect(server.hits('/doc')).toBe(1);
    expect(server.hits('/robots.txt')).toBe(1);
    await callFetch(pair, { url, max_length: 100 });
    expect(server.hits('/doc')).toBe(2);
    expect(server.hits('/robots.txt')).toBe(1); // robots.txt is cached per origin
  });
  it('expires entries after the TTL', async () => {
    await using server = await startServer(routes({ '/doc': send(paragraphPage('y'.repeat(300)), 'text/html') }));
    let clock = 1000; // the cache's clock, in ms: the test moves it
    await using pair = await connect({
      allowHosts: [`127.0.0.1:${server.port}`],
      ignoreRobotsTxt: true,
      cache: { ttlMs: 50, now: () => clock },
    });
    const url = `${server.origin}/doc`;
    await callFetch(pair, { url, max_length: 100 });
    clock += 50;
    await callFetch(pair, { url, max_length: 100, start_index: 100 });
    expect(server.hits('/doc')).toBe(1); // 50 ms on: still cached
    clock += 1;
    await callFetch(pair, { url, max_length: 100, start_index: 100 });
    expect(server.hits('/doc')).toBe(2);
  });
});

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

describe('limits and failures', () => {
  it('follows redirects and reports the final URL', async () => {
    await using server = await startServer(
      routes({
        '/old': redirect('/new'),
        '/new': send(paragraphPage('moved here'), 'text/html'),
      }),
    );
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true });
    const result = await callFetch(pair, { url: `${server.origin}/old` });
    expect(text(result)).toBe(`Contents of ${server.origin}/old:\nmoved here`);
    expect(result.structuredContent).toMatchObject({ url: `${server.origin}/old`, finalUrl: `${server.origin}/new` });
  });
  it('stops after --max-redirects', async () => {
    await using server = await startServer((req, res) => {
      res.statusCode = 302;
      res.setHeader('location', `/hop${Number((req.url ?? '').replace(/\D/g, '') || 0) + 1}`);
      res.end();
    });
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true, maxRedirects: 3 });
    const result = await callFetch(pair, { url: `${server.origin}/hop0` });
    expect(text(result)).toBe(`Failed to fetch ${server.origin}/hop0: TooManyRedirects('Exceeded maximum allowed redirects.')`);
    expect(server.requests).toHaveLength(4);
  });
  it('times out a slow response with a clear error', async () => {
    await using server = await startServer(async (_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.write('<html><body>'); // and never the rest: the response stalls until the client gives up
      await once(res, 'close');
    });
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true, timeoutMs: 200 });
    const result = await callFetch(pair, { url: `${server.origin}/slow` });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(`Failed to fetch ${server.origin}/slow: no complete response within 200 ms (raise the limit with --timeout)`);
  });
  it('refuses a body over --max-bytes (declared length)', async () => {
    await using server = await startServer(routes({ '/big': send('z'.repeat(5000), 'text/plain') }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true, maxBytes: 1024 });
    const result = await callFetch(pair, { url: `${server.origin}/big` });
    expect(text(result)).toBe(
      `Failed to fetch ${server.origin}/big: the response is 4.9 KiB, over the 1 KiB limit (raise it with --max-bytes)`,
    );
  });
  it('refuses a streamed body over --max-bytes, and a gzip bomb by its decoded size', async () => {
    await using server = await startServer(
      routes({
        '/stream': (_req, res) => {
          res.setHeader('content-type', 'text/plain');
          for (let i = 0; i < 10; i++) res.write('q'.repeat(1000));
          res.end();
        },
        '/bomb': (_req, res) => {
          res.setHeader('content-type', 'text/plain');
          res.setHeader('content-encoding', 'gzip');
          res.end(gzipSync(Buffer.alloc(5_000_000, 0x61)));
        },
      }),
    );
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true, maxBytes: 4096 });
    for (const path of ['/stream', '/bomb']) {
      const result = await callFetch(pair, { url: `${server.origin}${path}` });
      expect(text(result)).toBe(
        `Failed to fetch ${server.origin}${path}: the response is over the 4 KiB limit (raise it with --max-bytes)`,
      );
    }
  });
  it('reports a refused connection like the reference (Failed to fetch <url>: ConnectError(…))', async () => {
    const server = await startServer(send('x'));
    const { port } = server;
    await server.close();
    await using pair = await connect({ allowHosts: [`127.0.0.1:${port}`], ignoreRobotsTxt: true });
    const result = await callFetch(pair, { url: `http://127.0.0.1:${port}/` });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(new RegExp(`^Failed to fetch http://127\\.0\\.0\\.1:${port}/: ConnectError\\('.*ECONNREFUSED.*'\\)$`));
  });
});

describe('robots.txt per RFC 9309', () => {
  it.each([500, 503])('a %i robots.txt refuses autonomous fetching (the reference allowed it)', async (status) => {
    await using server = await startServer(routes({ '/robots.txt': send('oops', 'text/html', status), '/p': send(paragraphPage('p')) }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`] });
    const result = await callFetch(pair, { url: `${server.origin}/p` });
    expect(text(result)).toBe(
      `When fetching robots.txt (${server.origin}/robots.txt), received status ${status} so assuming that autonomous fetching is not allowed, the user can try manually fetching by using the fetch prompt`,
    );
    expect(server.hits('/p')).toBe(0);
  });
  it('a robots.txt that does not answer in time refuses, within its own short timeout', async () => {
    await using server = await startServer(
      routes({
        '/robots.txt': async (_req, res) => {
          await once(res, 'close'); // never answers: the fetcher gives up and drops the request
        },
        '/p': send(paragraphPage('p')),
      }),
    );
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], robotsTimeoutMs: 150 });
    const result = await callFetch(pair, { url: `${server.origin}/p` });
    expect(text(result)).toBe(`Failed to fetch robots.txt ${server.origin}/robots.txt due to a connection issue`);
    expect(server.hits('/p')).toBe(0);
  });
  it.each([404, 410, 429])('a %i robots.txt allows', async (status) => {
    await using server = await startServer(routes({ '/robots.txt': send('', 'text/plain', status), '/p': send(paragraphPage('fine')) }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`] });
    expect(text(await callFetch(pair, { url: `${server.origin}/p` }))).toContain('fine');
  });
  it('matches the group of our product token, and only it', async () => {
    const robots = 'User-agent: *\nAllow: /\n\n# keep agents out of /private\nUser-agent: ModelContextProtocol\nDisallow: /private\n';
    await using server = await startServer(
      routes({
        '/robots.txt': send(robots, 'text/plain'),
        '/private/x': send(paragraphPage('secret')),
        '/public': send(paragraphPage('open')),
      }),
    );
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`] });
    expect(text(await callFetch(pair, { url: `${server.origin}/public` }))).toContain('open');
    const refused = await callFetch(pair, { url: `${server.origin}/private/x` });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(`<robots>\n${robots}\n</robots>`);
  });
  it('follows robots.txt redirects', async () => {
    await using server = await startServer(
      routes({
        '/robots.txt': redirect('/real-robots.txt'),
        '/real-robots.txt': send('User-agent: *\nDisallow: /', 'text/plain'),
        '/p': send(paragraphPage('p')),
      }),
    );
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`] });
    expect((await callFetch(pair, { url: `${server.origin}/p` })).isError).toBe(true);
  });
  it('--ignore-robots-txt skips it', async () => {
    await using server = await startServer(
      routes({ '/robots.txt': send('User-agent: *\nDisallow: /'), '/p': send(paragraphPage('skipped')) }),
    );
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true });
    expect(text(await callFetch(pair, { url: `${server.origin}/p` }))).toContain('skipped');
    expect(server.hits('/robots.txt')).toBe(0);
  });
});

describe('prompt fetch (manual pipeline)', () => {
  it('uses the user-specified agent, skips robots.txt and returns the whole content', async () => {
    const long = 'w'.repeat(8000);
    await using server = await startServer(routes({ '/robots.txt': send('User-agent: *\nDisallow: /'), '/p': send(paragraphPage(long)) }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`] });
    const url = `${server.origin}/p`;
    const result = await pair.client.getPrompt({ name: 'fetch', arguments: { url } });
    expect(result.description).toBe(`Contents of ${url}`);
    expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: long } }]);
    expect(server.hits('/robots.txt')).toBe(0);
    expect(server.requests[0]?.headers['user-agent']).toBe(DEFAULT_USER_AGENT_MANUAL);
  });
  it('returns "Failed to fetch" with the error as the message', async () => {
    await using server = await startServer(routes({}));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`] });
    const url = `${server.origin}/missing`;
    const result = await pair.client.getPrompt({ name: 'fetch', arguments: { url } });
    expect(result.description).toBe(`Failed to fetch ${url}`);
    expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: `Failed to fetch ${url} - status code 404` } }]);
  });
  it('keeps the raw-content prefix for non-HTML', async () => {
    await using server = await startServer(routes({ '/t': send('plain', 'text/plain') }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`] });
    const result = await pair.client.getPrompt({ name: 'fetch', arguments: { url: `${server.origin}/t` } });
    expect(result.messages[0]?.content).toEqual({
      type: 'text',
      text: 'Content type text/plain cannot be simplified to markdown, but here is the raw content:\nplain',
    });
  });
  it('without url: a -32602 error saying "URL is required"', async () => {
    await using pair = await connect();
    await expect(pair.client.getPrompt({ name: 'fetch', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('URL is required'),
    });
  });
  it('--user-agent replaces both agents', async () => {
    await using server = await startServer(routes({ '/p': send(paragraphPage('ua')) }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], userAgent: 'MyBot/2.0' });
    await callFetch(pair, { url: `${server.origin}/p` });
    await pair.client.getPrompt({ name: 'fetch', arguments: { url: `${server.origin}/p` } });
    expect(new Set(server.requests.map((r) => r.headers['user-agent']))).toEqual(new Set(['MyBot/2.0']));
    expect(server.requests.map((r) => r.url)).toEqual(['/robots.txt', '/p', '/p']);
  });
  it('the tool sends the autonomous agent', async () => {
    await using server = await startServer(routes({ '/p': send(paragraphPage('ua')) }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`] });
    await callFetch(pair, { url: `${server.origin}/p` });
    expect(server.requests.map((r) => [r.url, r.headers['user-agent']])).toEqual([
      ['/robots.txt', DEFAULT_USER_AGENT_AUTONOMOUS],
      ['/p', DEFAULT_USER_AGENT_AUTONOMOUS],
    ]);
  });
});
