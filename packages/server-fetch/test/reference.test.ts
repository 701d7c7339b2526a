/**
 * The reference's own test list (src/fetch/tests/test_server.py, 20 tests) as behaviour, against
 * real HTTP servers on 127.0.0.1 instead of a patched httpx. Loopback access is opted into with
 * `allowHosts` (the default refuses it).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_USER_AGENT_AUTONOMOUS } from '../src/constants.js';
import { createHtmlConverter } from '../src/content/html.js';
import { robotsTxtUrl } from '../src/robots.js';
import { callFetch, connect, routes, send, startProxy, startServer, text } from './helpers.js';

const ARTICLE =
  '<html><head><title>Test Page</title></head><body><article><h1>Hello World</h1><p>This is a test paragraph.</p></article></body></html>';

describe('get_robots_txt_url (tests 1-6)', () => {
  it.each([
    ['https://example.com/page', 'https://example.com/robots.txt'],
    ['https://example.com/some/deep/path/page.html', 'https://example.com/robots.txt'],
    ['https://example.com/page?foo=bar&baz=qux', 'https://example.com/robots.txt'],
    ['https://example.com:8080/page', 'https://example.com:8080/robots.txt'],
    ['https://example.com/page#section', 'https://example.com/robots.txt'],
    ['http://example.com/page', 'http://example.com/robots.txt'],
  ])('%s → %s', (url, robots) => {
    expect(robotsTxtUrl(url)).toBe(robots);
  });
});

describe('extract_content_from_html (tests 7-9)', () => {
  const convert = createHtmlConverter();
  it('keeps the article text', async () => {
    expect((await convert(ARTICLE, 'https://example.com/')).markdown).toContain('test paragraph');
  });
  it('keeps link text', async () => {
    const html = '<html><body><article><p>Visit <a href="https://example.com">Example</a> for more.</p></article></body></html>';
    expect((await convert(html, 'https://example.com/')).markdown).toContain('Example');
  });
  it('reports an empty page with an <error> text', async () => {
    expect((await convert('', undefined)).markdown).toContain('<error>');
  });
});

describe('check_may_autonomously_fetch_url (tests 10-14)', () => {
  async function robotsCase(robots: { status: number; body?: string }) {
    const server = await startServer(
      routes({ '/robots.txt': send(robots.body ?? '', 'text/plain', robots.status), '/page': send(ARTICLE, 'text/html') }),
    );
    const pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`] });
    const result = await callFetch(pair, { url: `${server.origin}/page` });
    await pair[Symbol.asyncDispose]();
    await server.close();
    return { result, server };
  }

  it('robots.txt 404 → allowed', async () => {
    const { result, server } = await robotsCase({ status: 404 });
    expect(result.isError).toBeFalsy();
    expect(server.hits('/page')).toBe(1);
    expect(server.requests.find((r) => r.url === '/robots.txt')?.headers['user-agent']).toBe(DEFAULT_USER_AGENT_AUTONOMOUS);
  });
  it.each([401, 403])('robots.txt %i → refused, page never requested', async (status) => {
    const { result, server } = await robotsCase({ status });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      `When fetching robots.txt (${server.origin}/robots.txt), received status ${status} so assuming that autonomous fetching is not allowed, the user can try manually fetching by using the fetch prompt`,
    );
    expect(server.hits('/page')).toBe(0);
  });
  it('robots.txt allowing everything → allowed', async () => {
    const { result } = await robotsCase({ status: 200, body: 'User-agent: *\nAllow: /' });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain('test paragraph');
  });
  it('robots.txt disallowing everything → refused with the reference text', async () => {
    const { result, server } = await robotsCase({ status: 200, body: 'User-agent: *\nDisallow: /' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      `The sites robots.txt (${server.origin}/robots.txt), specifies that autonomous fetching of this page is not allowed, <useragent>${DEFAULT_USER_AGENT_AUTONOMOUS}</useragent>\n<url>${server.origin}/page</url><robots>\nUser-agent: *\nDisallow: /\n</robots>\nThe assistant must let the user know that it failed to view the page. The assistant may provide further guidance based on the above information.\nThe assistant can tell the user that they can try manually fetching the page by using the fetch prompt within their UI.`,
    );
    expect(server.hits('/page')).toBe(0);
  });
});

describe('fetch_url (tests 15-19)', () => {
  async function fetchCase(handler: Parameters<typeof routes>[0][string], args: Record<string, unknown> = {}) {
    await using server = await startServer(routes({ '/page': handler }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${server.port}`], ignoreRobotsTxt: true });
    const url = `${server.origin}/page`;
    return { result: await callFetch(pair, { url, ...args }), url };
  }

  it('HTML is simplified, with no prefix', async () => {
    const { result, url } = await fetchCase(send(ARTICLE, 'text/html'));
    expect(result.isError).toBeFalsy();
    expect(text(result).startsWith(`Contents of ${url}:\n`)).toBe(true);
    expect(text(result)).toContain('This is a test paragraph.');
    expect(text(result)).not.toContain('<article>');
  });
  it('raw returns the HTML unchanged, after the "cannot be simplified" prefix', async () => {
    const html = '<html><body><h1>Test</h1></body></html>';
    const { result, url } = await fetchCase(send(html, 'text/html'), { raw: true });
    expect(text(result)).toBe(
      `Content type text/html cannot be simplified to markdown, but here is the raw content:\nContents of ${url}:\n${html}`,
    );
  });
  it('JSON gets the prefix and comes back as served', async () => {
    const { result, url } = await fetchCase(send('{"key": "value"}', 'application/json'));
    expect(text(result)).toBe(
      `Content type application/json cannot be simplified to markdown, but here is the raw content:\nContents of ${url}:\n{"key": "value"}`,
    );
  });
  it('JSON with raw comes back byte for byte', async () => {
    const { result } = await fetchCase(send('{"key": "value"}', 'application/json'), { raw: true });
    expect(text(result).endsWith(':\n{"key": "value"}')).toBe(true);
  });
  it.each([404, 500])('status %i → the reference error', async (status) => {
    const { result, url } = await fetchCase(send('nope', 'text/plain', status));
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(`Failed to fetch ${url} - status code ${status}`);
  });
});

describe('proxy (test 20)', () => {
  it('sends requests through the configured proxy', async () => {
    await using target = await startServer(routes({ '/page': send(ARTICLE, 'text/html') }));
    await using proxy = await startProxy(target.port);
    // The name resolves (for the SSRF check) through the injected resolver; the proxy connects.
    await using pair = await connect({
      proxyUrl: proxy.origin,
      ignoreRobotsTxt: true,
      resolve: async () => [{ address: '93.184.215.14', family: 4 }],
    });
    const result = await callFetch(pair, { url: 'http://proxied.example/page' });
    expect(text(result)).toContain('test paragraph');
    expect(proxy.requestLines).toEqual(['GET http://proxied.example/page HTTP/1.1']);
    expect(target.hits('/page')).toBe(1);
  });
});
