/** The fetch tool's limits and failures (redirects, timeouts, sizes, refused connections) and robots.txt (RFC 9309). */
import { once } from 'node:events';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { callFetch, connect, paragraphPage, redirect, routes, send, startServer, text } from './helpers.js';

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
