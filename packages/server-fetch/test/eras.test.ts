// Both protocol eras from one server over Streamable HTTP: the v2 client in each negotiation mode
// (legacy → 2025-11-25, auto and pinned → 2026-07-28), progress notifications in the 2026 era, cache
// hints, and the per-unit share of the conversion workers being released after each 2026 request.
import { startHttp, V2_MODES } from '@mcpkit/protocol-core/testing';
import type { Progress } from '@modelcontextprotocol/client';
import { describe, expect, it, vi } from 'vitest';
import { createFetcher, createFetchServer, type Fetcher, type FetcherOptions } from '../src/server.js';
import { CHUNK, CHUNKS, drip, endless, expectIncreasing, routes, send, startServer, text } from './helpers.js';

const ERA = { legacy: 'legacy', auto: 'modern', '2026-07-28': 'modern' } as const;
const HOUR = 60 * 60 * 1000;
const ARTICLE = '<html><head><title>Hi</title></head><body><article><h1>Title</h1><p>Both eras work.</p></article></body></html>';

/** The CLI's wiring: one fetcher shared by every server the runner builds, counting the units it serves. */
function app(options: FetcherOptions) {
  const shared = createFetcher(options);
  const units = { opened: 0, closed: 0 };
  const fetcher: Fetcher = {
    ...shared,
    openSession() {
      units.opened++;
      const unit = shared.openSession();
      return {
        ...unit,
        close: async () => {
          units.closed++;
          await unit.close();
        },
      };
    },
  };
  return { units, createServer: () => createFetchServer({ fetcher }), close: () => shared.close() };
}

async function site() {
  return startServer(routes({ '/article': send(ARTICLE, 'text/html'), '/slow': drip }));
}

describe('the v2 client over Streamable HTTP, every negotiation mode', () => {
  for (const mode of V2_MODES) {
    it(`${mode}: lands on the ${ERA[mode]} era, lists the tool and prompt and calls both`, async () => {
      await using web = await site();
      await using http = await startHttp(app({ allowHosts: [`127.0.0.1:${web.port}`], ignoreRobotsTxt: true }));
      const client = await http.connect({ mode });
      expect(client.getProtocolEra()).toBe(ERA[mode]);
      expect(client.getServerVersion()).toMatchObject({ name: 'mcp-fetch', title: 'Fetch' });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['fetch']);
      expect(tools[0]!.inputSchema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', required: ['url'] });
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['fetch']);
      const url = `${web.origin}/article`;
      expect(text(await client.callTool({ name: 'fetch', arguments: { url } }))).toBe(`Contents of ${url}:\n## Title\n\nBoth eras work.`);
      expect((await client.getPrompt({ name: 'fetch', arguments: { url } })).description).toBe(`Contents of ${url}`);
    });
  }
});

describe('the v1 SDK client (2025-11-25) over Streamable HTTP', () => {
  it('still gets a session, lists the tool and calls it', async () => {
    await using web = await site();
    await using http = await startHttp(app({ allowHosts: [`127.0.0.1:${web.port}`], ignoreRobotsTxt: true }));
    const client = await http.connect();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['fetch']);
    const url = `${web.origin}/article`;
    expect(text(await client.callTool({ name: 'fetch', arguments: { url } }))).toBe(`Contents of ${url}:\n## Title\n\nBoth eras work.`);
    expect(http.running.sessionCount()).toBe(1);
  });
});

describe('progress notifications in the 2026 era', () => {
  for (const mode of ['auto', '2026-07-28'] as const) {
    it(`${mode}: report the bytes of a slow download, for the tool and for the prompt`, async () => {
      await using web = await site();
      await using http = await startHttp(app({ allowHosts: [`127.0.0.1:${web.port}`], ignoreRobotsTxt: true }));
      const client = await http.connect({ mode });
      expect(client.getProtocolEra()).toBe('modern');
      const url = `${web.origin}/slow`;
      const seen: Progress[] = [];
      const result = await client.callTool({ name: 'fetch', arguments: { url } }, { onprogress: (p) => seen.push(p) });
      expect(text(result)).toContain(`Contents of ${url}:\n${CHUNK.repeat(2).slice(0, 100)}`);
      expectIncreasing(seen);
      const downloads = seen.filter((p) => !p.message?.startsWith('Converting'));
      expect(downloads.length).toBeGreaterThan(0);
      for (const p of downloads) {
        expect(p.total).toBe(CHUNK.length * CHUNKS);
        expect(p.message).toMatch(/^Downloaded (\d+ bytes|[\d.]+ KiB) of 7\.8 KiB$/);
      }
      const promptSeen: Progress[] = [];
      await client.getPrompt({ name: 'fetch', arguments: { url } }, { onprogress: (p) => promptSeen.push(p) });
      expect(promptSeen.length).toBeGreaterThan(0);
      expect(promptSeen[0]!.message).toMatch(/^Downloaded /);
    });
  }

  it('are not sent when the 2026 request has no progressToken', async () => {
    await using web = await site();
    await using http = await startHttp(app({ allowHosts: [`127.0.0.1:${web.port}`], ignoreRobotsTxt: true }));
    const client = await http.connect({ mode: '2026-07-28' });
    const seen: unknown[] = [];
    client.setNotificationHandler('notifications/progress', (n) => {
      seen.push(n);
    });
    const result = await client.callTool({ name: 'fetch', arguments: { url: `${web.origin}/slow` } });
    expect(result.isError).toBeFalsy();
    expect(seen).toEqual([]);
  });
});

describe('cancellation in the 2026 era', () => {
  it('a call the client aborts closes the download, and the server serves the next call', async () => {
    const body = endless();
    await using web = await startServer(routes({ '/endless': body.handler, '/article': send(ARTICLE, 'text/html') }));
    await using http = await startHttp(
      app({ allowHosts: [`127.0.0.1:${web.port}`], ignoreRobotsTxt: true, maxBytes: 1e9, timeoutMs: 20_000 }),
    );
    const client = await http.connect({ mode: '2026-07-28' });
    const abort = new AbortController();
    const call = client.callTool({ name: 'fetch', arguments: { url: `${web.origin}/endless` } }, { signal: abort.signal });
    await body.opened;
    abort.abort('the user clicked Stop');
    await expect(call).rejects.toThrow('the user clicked Stop');
    // The endless body only ends when the server lets go of it; the 20 s timeout is far away.
    await body.closed;
    expect(text(await client.callTool({ name: 'fetch', arguments: { url: `${web.origin}/article` } }))).toContain('Both eras work.');
  });
});

describe('one share of the conversion workers per serving unit', () => {
  it('2026 requests each open one and release it when answered; a 2025 session holds one until it ends', async () => {
    await using web = await site();
    const served = app({ allowHosts: [`127.0.0.1:${web.port}`], ignoreRobotsTxt: true });
    await using http = await startHttp(served);
    const modern = await http.connect({ mode: '2026-07-28' });
    const url = `${web.origin}/article`;
    for (let i = 0; i < 3; i++) await modern.callTool({ name: 'fetch', arguments: { url } });
    // Released once each answer is sent: wait for that state rather than for a while.
    await vi.waitFor(() => {
      expect(served.units.opened).toBeGreaterThanOrEqual(3);
      expect(served.units.closed).toBe(served.units.opened);
    });

    const before = served.units.opened;
    const legacy = await http.connect({ mode: 'legacy' });
    await legacy.callTool({ name: 'fetch', arguments: { url } });
    await legacy.callTool({ name: 'fetch', arguments: { url } });
    expect(served.units.opened).toBe(before + 1);
    expect(served.units.closed).toBe(before);
    // The session ends with the runner (or its idle timeout): then its share is released too.
    await http.running.close();
    await expect.poll(() => served.units.closed).toBe(before + 1);
  });
});

describe('cache hints (2026-07-28)', () => {
  it('discover and the tool and prompt lists are cacheable for an hour by anyone', async () => {
    await using http = await startHttp(app({}));
    const client = await http.connect({ mode: '2026-07-28' });
    expect(client.getDiscoverResult()).toMatchObject({ ttlMs: HOUR, cacheScope: 'public' });
    expect(await client.listTools()).toMatchObject({ ttlMs: HOUR, cacheScope: 'public' });
    expect(await client.listPrompts()).toMatchObject({ ttlMs: HOUR, cacheScope: 'public' });
  });

  it('a 2025 client gets no cache fields', async () => {
    await using http = await startHttp(app({}));
    const client = await http.connect({ mode: 'legacy' });
    expect(await client.listTools()).not.toHaveProperty('ttlMs');
  });
});
