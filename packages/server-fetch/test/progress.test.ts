/**
 * `notifications/progress` for clients that send a progressToken (the SDK client does when the call
 * has `onprogress`): bytes while a slow body drips in, a heartbeat while a long conversion runs.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Progress, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connect, deepPage, routes, send, sourceWorker, startServer, text } from './helpers.js';

const CHUNK = 'word '.repeat(200); // 1000 bytes
const CHUNKS = 8;

/** 8 KB of text/plain with a Content-Length, one kilobyte every 150 ms. */
async function drip(_req: unknown, res: ServerResponse): Promise<void> {
  res.setHeader('content-type', 'text/plain');
  res.setHeader('content-length', String(CHUNK.length * CHUNKS));
  for (let i = 0; i < CHUNKS; i++) {
    res.write(CHUNK);
    await sleep(150);
  }
  res.end();
}

function expectIncreasing(seen: Progress[]): void {
  for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
}

describe('progress notifications', () => {
  it('report the bytes of a slow download, for the tool and for the prompt', async () => {
    await using site = await startServer(routes({ '/slow': drip }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: true });
    const url = `${site.origin}/slow`;
    const seen: Progress[] = [];
    const result = await pair.client.callTool({ name: 'fetch', arguments: { url } }, undefined, { onprogress: (p) => seen.push(p) });
    expect(text(result)).toContain(`Contents of ${url}:\n${CHUNK.repeat(2).slice(0, 100)}`);
    expectIncreasing(seen);
    // A busy machine may also send a conversion heartbeat after the download (no total, "Converting …").
    const downloads = seen.filter((p) => !p.message?.startsWith('Converting'));
    expect(downloads.length).toBeGreaterThan(0);
    for (const p of downloads) {
      expect(p.total).toBe(CHUNK.length * CHUNKS);
      expect(p.progress).toBeLessThanOrEqual(CHUNK.length * CHUNKS);
      expect(p.message).toMatch(/^Downloaded (\d+ bytes|[\d.]+ KiB) of 7\.8 KiB$/);
    }

    const promptSeen: Progress[] = [];
    const prompt = await pair.client.getPrompt({ name: 'fetch', arguments: { url } }, { onprogress: (p) => promptSeen.push(p) });
    expect(prompt.description).toBe(`Contents of ${url}`);
    expect(promptSeen.length).toBeGreaterThan(0);
    expect(promptSeen[0]!.message).toMatch(/^Downloaded /);
  });

  it('keep coming while a long conversion runs', async () => {
    await using site = await startServer(routes({ '/deep': send(deepPage(5_000), 'text/html') }));
    await using pair = await connect({
      allowHosts: [`127.0.0.1:${site.port}`],
      ignoreRobotsTxt: true,
      timeoutMs: 2000,
      conversionWorker: await sourceWorker(),
    });
    const seen: Progress[] = [];
    const result = await pair.client.callTool({ name: 'fetch', arguments: { url: `${site.origin}/deep` } }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    expect(result.isError).toBe(true);
    const converting = seen.filter((p) => p.message?.startsWith('Converting'));
    expect(converting.length).toBeGreaterThan(1);
    expectIncreasing(seen);
    expect(converting[0]!.message).toMatch(/^Converting text\/html \(\d+(\.\d)? KiB\) to text \(\d+ s\)$/);
    expect(converting[0]!.total).toBeUndefined();
  });

  it('are not sent when the request has no progressToken', async () => {
    await using site = await startServer(routes({ '/slow': drip }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: true });
    const seen: unknown[] = [];
    pair.client.setNotificationHandler(ProgressNotificationSchema, (n) => {
      seen.push(n);
    });
    const result = await pair.client.callTool({ name: 'fetch', arguments: { url: `${site.origin}/slow` } });
    expect(result.isError).toBeFalsy();
    expect(seen).toEqual([]);
  });
});
