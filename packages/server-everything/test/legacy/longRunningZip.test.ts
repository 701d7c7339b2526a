import { connectInMemory } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createLegacyServer } from '../../src/profiles/legacy/index.js';
import type { Download } from '../../src/shared/download.js';
import { createTestClock } from '../clock.js';
import { dataUri, failureText as failure, quiet, raw, readZip, text, until, wireLegacy } from './helpers.js';

describe('legacy longRunningOperation', () => {
  const progressOf = (received: unknown[]) =>
    received
      .filter((m): m is { params: Record<string, unknown> } => (m as { method?: string }).method === 'notifications/progress')
      .map((m) => m.params);

  it('reports progress for a numeric progress token (the SDK client’s own)', async () => {
    const clock = createTestClock();
    await using ours = await wireLegacy({ scheduler: clock.scheduler });
    const seen: { progress: number; total?: number }[] = [];
    const result = await clock.run(
      ours.client.callTool({ name: 'longRunningOperation', arguments: { duration: 0.03, steps: 3 } }, undefined, {
        onprogress: (p) => void seen.push({ progress: p.progress, total: p.total }),
      }),
    );
    expect(text(result)).toEqual(['Long running operation completed. Duration: 0.03 seconds, Steps: 3.']);
    expect(clock.now).toBe(30); // three steps of 10 ms
    expect(seen).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
    const tokens = progressOf(ours.received).map((p) => p.progressToken);
    expect(tokens).toHaveLength(3);
    expect(typeof tokens[0]).toBe('number');
  });

  it('reports progress for a string progress token, echoing it unchanged', async () => {
    const clock = createTestClock();
    await using ours = await wireLegacy({ scheduler: clock.scheduler });
    await clock.run(
      raw(ours.client, 'tools/call', {
        name: 'longRunningOperation',
        arguments: { duration: 0.02, steps: 2 },
        _meta: { progressToken: 'token-123' },
      }),
    );
    expect(progressOf(ours.received)).toEqual([
      { progress: 1, total: 2, progressToken: 'token-123' },
      { progress: 2, total: 2, progressToken: 'token-123' },
    ]);
  });

  it('sends no progress without a token, and refuses a non-number duration', async () => {
    const clock = createTestClock();
    await using ours = await wireLegacy({ scheduler: clock.scheduler });
    await clock.run(ours.client.callTool({ name: 'longRunningOperation', arguments: { duration: 0.01, steps: 2 } }));
    expect(progressOf(ours.received)).toEqual([]);
    expect((await failure(ours.client.callTool({ name: 'longRunningOperation', arguments: { duration: 'long' } }))).message).toContain(
      'expected number, received string at duration',
    );
  });

  it('stops when the client cancels the call', async () => {
    const clock = createTestClock();
    await using ours = await wireLegacy({ scheduler: clock.scheduler });
    const controller = new AbortController();
    const call = ours.client.callTool({ name: 'longRunningOperation', arguments: { duration: 10, steps: 1000 } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        if (p.progress === 2) controller.abort();
      },
    });
    const rejected = expect(call).rejects.toThrow();
    await until(() => clock.pending === 1); // the first step
    await clock.advance(2 * 10);
    await rejected;
    await until(() => clock.pending === 0); // the server stopped waiting for the next step
    await clock.advance(6 * 10); // six more steps' worth
    await ours.client.ping();
    expect(progressOf(ours.received)).toHaveLength(2);
  });
});

describe('legacy zip', () => {
  it('zips data: URIs (base64 and percent-encoded) into a data-URI resource link', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    const result = await pair.client.callTool({
      name: 'zip',
      arguments: {
        files: { 'hello.txt': dataUri('Hello, World!'), 'dir/ünï.txt': 'data:,a%20b%2Cc', 'big.txt': dataUri('x'.repeat(5000)) },
      },
    });
    const [link] = result.content as { type: string; uri: string; mimeType: string; name: string }[];
    expect(link).toMatchObject({ type: 'resource_link', mimeType: 'application/zip', name: 'files.zip' });
    const files = readZip(Buffer.from(link!.uri.replace('data:application/zip;base64,', ''), 'base64'));
    expect([...files.keys()]).toEqual(['hello.txt', 'dir/ünï.txt', 'big.txt']);
    expect(files.get('hello.txt')?.toString()).toBe('Hello, World!');
    expect(files.get('dir/ünï.txt')?.toString()).toBe('a b,c');
    expect(files.get('big.txt')?.toString()).toBe('x'.repeat(5000));
  });

  it('refuses http(s) without an injected downloader, other schemes always, and malformed URLs', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    const zip = (url: string) => failure(pair.client.callTool({ name: 'zip', arguments: { files: { 'a.txt': url } } }));
    expect(await zip('http://169.254.169.254/latest/meta-data/')).toEqual({
      code: -32603,
      message:
        "Error fetching file http://169.254.169.254/latest/meta-data/: this server does not fetch http:// URLs (no network policy is configured); pass the file's content as a data: URI instead",
    });
    expect((await zip('file:///etc/passwd')).message).toBe(
      'Error fetching file file:///etc/passwd: unsupported URL scheme file: (data:, http: and https: URLs are accepted)',
    );
    expect((await zip('data:text/plain;base64,@@@')).message).toBe(
      'Error fetching file data:text/plain;base64,@@@: the data: URI is not valid base64',
    );
    expect((await zip('not a url')).message).toContain('Invalid URL at files.a.txt');
  });

  it('fetches http(s) through the injected downloader, with the remaining byte budget and an abort signal', async () => {
    const calls: { url: string; maxBytes: number; signal: boolean }[] = [];
    const download: Download = async (url, { maxBytes, signal }) => {
      calls.push({ url: url.href, maxBytes, signal: signal instanceof AbortSignal });
      if (url.hostname === 'fails.example') throw new Error('refused by the network policy: private address');
      return new TextEncoder().encode(`body of ${url.pathname}`);
    };
    await using pair = await connectInMemory(createLegacyServer({ ...quiet, download }));
    const result = await pair.client.callTool({
      name: 'zip',
      arguments: { files: { 'one.txt': 'https://files.example/one', 'two.txt': dataUri('two') } },
    });
    const [link] = result.content as { uri: string }[];
    const files = readZip(Buffer.from(link!.uri.split(',')[1]!, 'base64'));
    expect(files.get('one.txt')?.toString()).toBe('body of /one');
    expect(calls).toEqual([{ url: 'https://files.example/one', maxBytes: 10 * 1024 * 1024, signal: true }]);
    expect(await failure(pair.client.callTool({ name: 'zip', arguments: { files: { 'x.txt': 'https://fails.example/x' } } }))).toEqual({
      code: -32603,
      message: 'Error fetching file https://fails.example/x: refused by the network policy: private address',
    });
  });

  it('refuses more than 10 MiB in total and more than 1000 files', async () => {
    await using pair = await connectInMemory(createLegacyServer(quiet));
    const half = dataUri('x'.repeat(6 * 1024 * 1024));
    expect(await failure(pair.client.callTool({ name: 'zip', arguments: { files: { 'a.txt': half, 'b.txt': half } } }))).toEqual({
      code: -32603,
      message: `Error fetching file ${half}: the files add up to more than 10485760 bytes, zip's limit`,
    });
    const many = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}`, 'data:,x']));
    expect((await failure(pair.client.callTool({ name: 'zip', arguments: { files: many } }))).message).toBe(
      'zip accepts at most 1000 files; 1001 were given',
    );
    expect(text(await pair.client.callTool({ name: 'echo', arguments: { message: 'still up' } }))).toEqual(['Echo: still up']);
  });
});
