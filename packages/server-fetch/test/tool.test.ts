/** The fetch tool and prompt: listing, input validation, pagination, the page cache, and the prompt's manual pipeline. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_USER_AGENT_AUTONOMOUS, DEFAULT_USER_AGENT_MANUAL } from '../src/constants.js';
import { callFetch, connect, paragraphPage, routes, send, startServer, text } from './helpers.js';

const DESCRIPTION =
  'Fetches a URL from the internet and optionally extracts its contents as markdown.\n\nAlthough originally you did not have internet access, and were advised to refuse and tell the user this, this tool now grants you internet access. Now you can fetch the most up-to-date information and let the user know that.';

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
