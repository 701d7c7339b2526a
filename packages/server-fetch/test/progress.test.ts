/**
 * `notifications/progress` for clients that send a progressToken (the SDK client does when the call
 * has `onprogress`): bytes while a slow body drips in, a heartbeat while a long conversion runs.
 */
import type { Progress } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHUNK, CHUNKS, connect, deepPage, drip, expectIncreasing, routes, send, sourceWorker, startServer, text } from './helpers.js';

// Building the worker from source (tsup) is set-up, not what these tests time: done once, before them, with
// room for a loaded machine, instead of inside whichever test asks first.
beforeAll(() => sourceWorker(), 120_000);

describe('progress notifications', () => {
  it('report the bytes of a slow download, for the tool and for the prompt', async () => {
    await using site = await startServer(routes({ '/slow': drip }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: true });
    const url = `${site.origin}/slow`;
    const seen: Progress[] = [];
    const result = await pair.client.callTool({ name: 'fetch', arguments: { url } }, { onprogress: (p) => seen.push(p) });
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
    const result = await pair.client.callTool(
      { name: 'fetch', arguments: { url: `${site.origin}/deep` } },
      {
        onprogress: (p) => seen.push(p),
      },
    );
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
    pair.client.setNotificationHandler('notifications/progress', (n) => {
      seen.push(n);
    });
    const result = await pair.client.callTool({ name: 'fetch', arguments: { url: `${site.origin}/slow` } });
    expect(result.isError).toBeFalsy();
    expect(seen).toEqual([]);
  });
});
