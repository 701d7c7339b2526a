/**
 * The guarded downloader the CLI injects (`createDownloader` from @mcpkit/net, loaded on the first download by
 * `lazyDownloader`, as src/index.ts builds it): refusals before any connection, the opt-ins, the size limit and the
 * signal; then `zip` (legacy) and `gzip-file-as-resource` (current) against a real HTTP server on 127.0.0.1; and
 * the CLI's network flags, which are @mcpkit/net's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createDownloader, type DownloaderOptions, networkOptions } from '@mcpkit/net';
import { connectInMemory } from '@mcpkit/protocol-core/testing';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { options } from '../src/config.js';
import { createEverythingServer } from '../src/server.js';
import { lazyDownloader } from '../src/shared/lazyDownloader.js';

const BODY = 'Hello from the loopback server!\n'.repeat(64); // 2048 bytes
const NAME = 'mcp-server-everything';

let server: Server;
let origin: string;
let port: number;
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/slow') return; // never answers (afterAll closes the connection)
    res.setHeader('content-type', 'text/plain');
    res.end(BODY);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function withDownloader<T>(options: DownloaderOptions, fn: (d: ReturnType<typeof createDownloader>) => Promise<T>): Promise<T> {
  const downloader = createDownloader({ name: NAME, ...options });
  try {
    return await fn(downloader);
  } finally {
    await downloader.close();
  }
}

const get = (options: DownloaderOptions, url: string, maxBytes: number, signal: AbortSignal) =>
  withDownloader(options, (d) => d.download(new URL(url), { signal, maxBytes }));

const text = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('guarded downloader', () => {
  it('refuses 127.0.0.1 by default with the policy message; no request arrives', async () => {
    const before = requests.length;
    await expect(get({}, `${origin}/file.txt`, 1024 * 1024, AbortSignal.timeout(10_000))).rejects.toThrow(
      `refused to connect: 127.0.0.1 is a loopback address. ${NAME} blocks private, loopback, link-local and cloud metadata destinations by default to prevent server-side request forgery; to allow it, start the server with --allow-host 127.0.0.1:${port} (this host only) or --allow-private-network (all private addresses).`,
    );
    await expect(get({}, `http://localhost:${port}/file.txt`, 1024, AbortSignal.timeout(10_000))).rejects.toThrow(
      /localhost resolves to .*loopback/,
    );
    await expect(get({ allowPrivateNetwork: true }, 'http://169.254.169.254/latest/', 1024, AbortSignal.timeout(10_000))).rejects.toThrow(
      'a cloud metadata address',
    );
    expect(requests.length).toBe(before);
  });

  it('allows it with allowPrivateNetwork or allowHost', async () => {
    const a = await get({ allowPrivateNetwork: true }, `${origin}/a`, 1024 * 1024, AbortSignal.timeout(10_000));
    expect(Buffer.from(a).toString()).toBe(BODY);
    const b = await get({ allowHosts: [`127.0.0.1:${port}`] }, `${origin}/b`, 1024 * 1024, AbortSignal.timeout(10_000));
    expect(Buffer.from(b).toString()).toBe(BODY);
    await expect(get({ allowHosts: [`127.0.0.1:${port + 1}`] }, `${origin}/c`, 1024, AbortSignal.timeout(10_000))).rejects.toThrow(
      'a loopback address',
    );
    expect(requests).toContain('/a');
    expect(requests).toContain('/b');
    expect(requests).not.toContain('/c');
  });

  it('enforces maxBytes', async () => {
    await expect(get({ allowPrivateNetwork: true }, `${origin}/big`, 100, AbortSignal.timeout(10_000))).rejects.toThrow(
      'over the 100 bytes limit',
    );
  });

  it('rejects with the signal’s reason when aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('time is up');
    const asked = requests.filter((url) => url === '/slow').length;
    const download = get({ allowPrivateNetwork: true }, `${origin}/slow`, 1024, controller.signal);
    // Aborted while it waits for an answer that never comes: only the signal can end it.
    await vi.waitFor(() => expect(requests.filter((url) => url === '/slow')).toHaveLength(asked + 1), { interval: 5 });
    controller.abort(reason);
    await expect(download).rejects.toBe(reason);
  });
});

describe('zip and gzip-file-as-resource fetch through the injected downloader', () => {
  /** A tool call through the CLI's downloader, loaded and built by the call's first download. */
  async function call(profile: 'legacy' | 'current', allow: boolean, name: string, args: Record<string, unknown>) {
    const downloader = lazyDownloader({ name: NAME, ...(allow ? { allowHosts: [`127.0.0.1:${port}`] } : {}) });
    try {
      await using pair = await connectInMemory(createEverythingServer({ profile, download: downloader.download }));
      return (await pair.client.callTool({ name, arguments: args })) as CallToolResult;
    } finally {
      await downloader.close();
    }
  }

  it('the lazy downloader closes without having loaded anything when nothing was downloaded', async () => {
    await expect(lazyDownloader({ name: NAME }).close()).resolves.toBeUndefined();
  });

  it('legacy zip: succeeds when allowed, refused otherwise', async () => {
    const ok = await call('legacy', true, 'zip', { files: { 'a.txt': `${origin}/zip-ok` } });
    expect(ok.isError).toBeFalsy();
    const link = ok.content[0] as { type: string; uri: string };
    expect(link.type).toBe('resource_link');
    expect(link.uri).toMatch(/^data:application\/zip;base64,/);
    expect(Buffer.from(link.uri.split(',')[1] ?? '', 'base64').includes(Buffer.from('a.txt'))).toBe(true);
    expect(requests).toContain('/zip-ok');

    // The legacy profile reports a failed fetch as a JSON-RPC error, as the reference does.
    await expect(call('legacy', false, 'zip', { files: { 'a.txt': `${origin}/zip-refused` } })).rejects.toThrow(
      `Error fetching file ${origin}/zip-refused: refused to connect: 127.0.0.1 is a loopback address. ${NAME} blocks`,
    );
    expect(requests).not.toContain('/zip-refused');
  });

  it('current gzip-file-as-resource: succeeds when allowed, refused otherwise', async () => {
    const ok = await call('current', true, 'gzip-file-as-resource', { name: 'f.txt.gz', data: `${origin}/gz-ok`, outputType: 'resource' });
    expect(ok.isError).toBeFalsy();
    const resource = (ok.content[0] as { resource: { blob: string } }).resource;
    expect(gunzipSync(Buffer.from(resource.blob, 'base64')).toString()).toBe(BODY);

    const refused = await call('current', false, 'gzip-file-as-resource', { name: 'f.txt.gz', data: `${origin}/gz-refused` });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(`Error processing file ${origin}/gz-refused: refused to connect: 127.0.0.1 is a loopback address`);
    expect(requests).not.toContain('/gz-refused');
  });
});

describe('the network flags', () => {
  it("are @mcpkit/net's networkOptions, written out in config.ts so that a start does not load the HTTP client", () => {
    const { 'allow-private-network': privateNetwork, 'allow-host': allowHost } = options;
    expect({ 'allow-private-network': privateNetwork, 'allow-host': allowHost }).toEqual(
      networkOptions({ allowPrivateNetwork: 'EVERYTHING_ALLOW_PRIVATE_NETWORK', allowHosts: 'EVERYTHING_ALLOW_HOSTS' }),
    );
  });
});
