/**
 * The fetcher owns fetching (issue 23, item 4): robots.txt, the user agents and the page cache are
 * decided by `fetchAutonomously` (the tool) and `fetchManually` (the prompt). Pages served from
 * 127.0.0.1; a page's download count tells whether it came from the cache.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_USER_AGENT_AUTONOMOUS, DEFAULT_USER_AGENT_MANUAL, rawContentPrefix } from '../src/constants.js';
import { createFetcher, type Fetcher, type FetcherOptions } from '../src/server.js';
import { type Handler, routes, send, startServer } from './helpers.js';

function open(options: FetcherOptions): Fetcher & AsyncDisposable {
  const fetcher = createFetcher({ ignoreRobotsTxt: true, ...options });
  return Object.assign(fetcher, { [Symbol.asyncDispose]: () => fetcher.close() });
}

/** Plain-text pages (`content` = the body, after the raw-content prefix), `chars` characters each. */
function textPages(sizes: Record<string, number>): Record<string, Handler> {
  return Object.fromEntries(Object.entries(sizes).map(([path, chars]) => [path, send('t'.repeat(chars), 'text/plain')]));
}

describe('page cache', () => {
  it('is bounded in pages and bytes, least recently used out first; a page over the byte bound alone is not kept', async () => {
    const prefix = rawContentPrefix('text/plain').length;
    const unit = (100 + prefix) * 2; // the cached size (UTF-16 bytes) of a 100-character page
    const big = Math.floor((2.5 * unit) / 2) - prefix; // 2.5 units: fits alone, not beside another page
    const huge = Math.ceil((3 * unit) / 2) - prefix + 1; // over the 3 units on its own
    await using site = await startServer(routes(textPages({ '/a': 100, '/b': 100, '/c': 100, '/d': big, '/huge': huge })));
    await using fetcher = open({ allowHosts: [`127.0.0.1:${site.port}`], cache: { maxEntries: 2, maxBytes: 3 * unit } });
    const get = (path: string, startIndex = 0) => fetcher.fetchAutonomously(`${site.origin}${path}`, { startIndex });

    await get('/a');
    await get('/b');
    await get('/a', 1); // served from the cache: a is now the most recently used
    await get('/c'); // a third page: b goes
    expect(['/a', '/b', '/c'].map((p) => site.hits(p))).toEqual([1, 1, 1]);
    await get('/c', 1);
    await get('/a', 1);
    expect([site.hits('/a'), site.hits('/c')]).toEqual([1, 1]);
    await get('/b', 1); // gone: downloaded again (and kept, c goes)
    expect(site.hits('/b')).toBe(2);

    await get('/huge');
    await get('/huge', 1);
    expect(site.hits('/huge')).toBe(2); // never kept, and it pushed nothing out
    await get('/a', 1);
    await get('/b', 1);
    expect([site.hits('/a'), site.hits('/b')]).toEqual([1, 2]);

    await get('/d'); // 2.5 units: the byte bound leaves it alone
    await get('/d', 1);
    expect(site.hits('/d')).toBe(1);
    await get('/a', 1);
    await get('/b', 1);
    expect([site.hits('/a'), site.hits('/b')]).toEqual([2, 3]);
  });

  it('expires a page after the TTL; start_index 0 always downloads', async () => {
    await using site = await startServer(routes(textPages({ '/a': 100 })));
    // The cache's clock is the test's: the TTL runs out when the test says, not when a slow machine gets there.
    let clock = 1_000_000;
    await using fetcher = open({ allowHosts: [`127.0.0.1:${site.port}`], cache: { ttlMs: 1_000, now: () => clock } });
    const url = `${site.origin}/a`;
    await fetcher.fetchAutonomously(url);
    await fetcher.fetchAutonomously(url, { startIndex: 50 });
    expect(site.hits('/a')).toBe(1);
    await fetcher.fetchAutonomously(url);
    expect(site.hits('/a')).toBe(2);
    clock += 999;
    await fetcher.fetchAutonomously(url, { startIndex: 50 });
    expect(site.hits('/a')).toBe(2); // within the TTL of the download stored 999 ms ago
    clock += 2;
    await fetcher.fetchAutonomously(url, { startIndex: 50 });
    expect(site.hits('/a')).toBe(3);
  });

  it('keeps a raw page apart from its conversion, and maxEntries 0 turns the cache off', async () => {
    await using site = await startServer(routes({ '/p': send('<html><body><article><p>Para.</p></article></body></html>', 'text/html') }));
    await using fetcher = open({ allowHosts: [`127.0.0.1:${site.port}`] });
    const url = `${site.origin}/p`;
    const raw = await fetcher.fetchAutonomously(url, { raw: true });
    expect((await fetcher.fetchAutonomously(url, { raw: true, startIndex: 1 })).content).toBe(raw.content);
    expect(site.hits('/p')).toBe(1);
    expect((await fetcher.fetchAutonomously(url, { startIndex: 1 })).content).toBe('Para.');
    expect(site.hits('/p')).toBe(2);

    await using off = open({ allowHosts: [`127.0.0.1:${site.port}`], cache: { maxEntries: 0 } });
    await off.fetchAutonomously(url);
    await off.fetchAutonomously(url, { startIndex: 1 });
    expect(site.hits('/p')).toBe(4);
  });

  it('is shared by the sessions of a fetcher and outlives a closed one', async () => {
    await using site = await startServer(routes(textPages({ '/a': 100 })));
    await using fetcher = open({ allowHosts: [`127.0.0.1:${site.port}`] });
    const url = `${site.origin}/a`;
    const one = fetcher.openSession();
    const two = fetcher.openSession();
    await one.fetchAutonomously(url);
    await one.close();
    await two.fetchAutonomously(url, { startIndex: 1 });
    await fetcher.fetchAutonomously(url, { startIndex: 1 });
    expect(site.hits('/a')).toBe(1);
    await two.close();
  });
});

describe('who asked', () => {
  const robots = send('User-agent: *\nDisallow: /private\n', 'text/plain');

  it('the model: the autonomous agent, robots.txt checked (once per origin, not for a continuation)', async () => {
    await using site = await startServer(routes({ '/robots.txt': robots, ...textPages({ '/private': 10, '/open': 10 }) }));
    await using fetcher = open({ allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: false });
    await expect(fetcher.fetchAutonomously(`${site.origin}/private`)).rejects.toThrow(
      /^The sites robots\.txt \(.*\/robots\.txt\), specifies that autonomous fetching of this page is not allowed/,
    );
    expect(site.hits('/private')).toBe(0);
    await fetcher.fetchAutonomously(`${site.origin}/open`);
    await fetcher.fetchAutonomously(`${site.origin}/open`, { startIndex: 1 });
    expect([site.hits('/robots.txt'), site.hits('/open')]).toEqual([1, 1]);
    expect(site.requests.map((r) => r.headers['user-agent'])).toEqual([DEFAULT_USER_AGENT_AUTONOMOUS, DEFAULT_USER_AGENT_AUTONOMOUS]);
  });

  it('ignoreRobotsTxt: the model fetches without asking robots.txt', async () => {
    await using site = await startServer(routes({ '/robots.txt': robots, ...textPages({ '/private': 10 }) }));
    await using fetcher = open({ allowHosts: [`127.0.0.1:${site.port}`] });
    await fetcher.fetchAutonomously(`${site.origin}/private`);
    expect([site.hits('/robots.txt'), site.hits('/private')]).toEqual([0, 1]);
  });

  it('the user: the user-specified agent, no robots.txt, nothing cached', async () => {
    await using site = await startServer(routes({ '/robots.txt': robots, ...textPages({ '/private': 10 }) }));
    await using fetcher = open({ allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: false });
    const url = `${site.origin}/private`;
    expect((await fetcher.fetchManually(url)).content).toBe('t'.repeat(10));
    await fetcher.fetchManually(url);
    expect([site.hits('/robots.txt'), site.hits('/private')]).toEqual([0, 2]);
    expect(site.requests.map((r) => r.headers['user-agent'])).toEqual([DEFAULT_USER_AGENT_MANUAL, DEFAULT_USER_AGENT_MANUAL]);
    // The manual fetches left nothing for a continuation: the model's call asks robots.txt, which refuses.
    await expect(fetcher.fetchAutonomously(url, { startIndex: 1 })).rejects.toThrow(/autonomous fetching of this page is not allowed/);
  });

  it('userAgent replaces both agents', async () => {
    await using site = await startServer(routes(textPages({ '/a': 10 })));
    await using fetcher = open({ allowHosts: [`127.0.0.1:${site.port}`], userAgent: 'Custom/1.0' });
    await fetcher.fetchAutonomously(`${site.origin}/a`);
    await fetcher.fetchManually(`${site.origin}/a`);
    expect(site.requests.map((r) => r.headers['user-agent'])).toEqual(['Custom/1.0', 'Custom/1.0']);
  });
});
