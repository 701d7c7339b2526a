// The built bin over stdio in both protocol eras: the v2 client in each negotiation mode lists and calls
// the tool, and progress notifications reach a 2026-07-28 client as they reach a 2025 one.
import { fileURLToPath } from 'node:url';
import { spawnStdio, V2_MODES } from '@mcpkit/protocol-core/testing';
import type { Progress } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { CHUNK, CHUNKS, drip, expectIncreasing, routes, send, startServer, text } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const ERA = { legacy: 'legacy', auto: 'modern', '2026-07-28': 'modern' } as const;
const ARTICLE = '<html><head><title>Hi</title></head><body><article><h1>Title</h1><p>Stdio, both eras.</p></article></body></html>';

describe('the v2 client over stdio, every negotiation mode', () => {
  for (const mode of V2_MODES) {
    it(`${mode}: lands on the ${ERA[mode]} era, lists and calls the tool; the SSRF guard holds`, async () => {
      await using web = await startServer(routes({ '/article': send(ARTICLE, 'text/html') }));
      await using other = await startServer(send('<p>secret</p>', 'text/html'));
      await using proc = await spawnStdio(bin, { mode, args: ['--allow-host', `127.0.0.1:${web.port}`, '--ignore-robots-txt'] });
      expect(proc.client.getProtocolEra()).toBe(ERA[mode]);
      expect(proc.client.getServerVersion()).toMatchObject({ name: 'mcp-fetch' });
      expect((await proc.client.listTools()).tools.map((t) => t.name)).toEqual(['fetch']);
      const url = `${web.origin}/article`;
      expect(text(await proc.client.callTool({ name: 'fetch', arguments: { url } }))).toBe(
        `Contents of ${url}:\n## Title\n\nStdio, both eras.`,
      );
      const refused = await proc.client.callTool({ name: 'fetch', arguments: { url: `${other.origin}/` } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain('is a loopback address');
      expect(other.requests).toHaveLength(0);
    });
  }

  for (const mode of ['legacy', '2026-07-28'] as const) {
    it(`${mode}: progress notifications report a slow download`, async () => {
      await using web = await startServer(routes({ '/slow': drip }));
      await using proc = await spawnStdio(bin, { mode, args: ['--allow-host', `127.0.0.1:${web.port}`, '--ignore-robots-txt'] });
      const seen: Progress[] = [];
      const url = `${web.origin}/slow`;
      const result = await proc.client.callTool({ name: 'fetch', arguments: { url } }, { onprogress: (p) => seen.push(p) });
      expect(text(result)).toContain(`Contents of ${url}:\n`);
      expectIncreasing(seen);
      const downloads = seen.filter((p) => !p.message?.startsWith('Converting'));
      expect(downloads.length).toBeGreaterThan(0);
      for (const p of downloads) expect(p).toMatchObject({ total: CHUNK.length * CHUNKS, message: expect.stringMatching(/^Downloaded /) });
    });
  }
});
