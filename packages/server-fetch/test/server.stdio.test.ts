import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { runBin, spawnStdio } from '@mcpkit/protocol-core/testing';
import { expect, it, vi } from 'vitest';
import { deepPage, makePdf, routes, send, startServer, text } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

it('serves the fetch tool and prompt over stdio: HTML, PDF (lazily loaded), and the SSRF refusal', async () => {
  await using site = await startServer(
    routes({
      '/robots.txt': send('User-agent: *\nAllow: /', 'text/plain'),
      '/article': send(
        '<html><head><title>Hi</title></head><body><article><h1>Title</h1><p>Stdio works fine.</p></article></body></html>',
        'text/html',
      ),
      '/doc.pdf': send(makePdf(['PDF over stdio']), 'application/pdf'),
    }),
  );
  await using other = await startServer(send('<p>secret</p>', 'text/html'));
  await using proc = await spawnStdio(bin, { args: ['--allow-host', `127.0.0.1:${site.port}`, '--log-level', 'debug'] });

  expect((await proc.client.listTools()).tools.map((t) => t.name)).toEqual(['fetch']);
  expect((await proc.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['fetch']);

  const article = await proc.client.callTool({ name: 'fetch', arguments: { url: `${site.origin}/article` } });
  expect(text(article)).toBe(`Contents of ${site.origin}/article:\n## Title\n\nStdio works fine.`);

  const pdf = await proc.client.callTool({ name: 'fetch', arguments: { url: `${site.origin}/doc.pdf` } });
  expect(text(pdf)).toBe(`Contents of ${site.origin}/doc.pdf:\nPDF over stdio`);

  const refused = await proc.client.callTool({ name: 'fetch', arguments: { url: `${other.origin}/` } });
  expect(refused.isError).toBe(true);
  expect(text(refused)).toContain('is a loopback address');
  expect(other.requests).toHaveLength(0);

  const prompt = await proc.client.getPrompt({ name: 'fetch', arguments: { url: `${site.origin}/article` } });
  expect(prompt.description).toBe(`Contents of ${site.origin}/article`);
  expect(proc.stderr()).toContain(`GET ${site.origin}/article`);
});

it("starts with the reference's --allow-private-ips, an alias of --allow-private-network", async () => {
  await using site = await startServer(send('<html><body><article><p>Private page.</p></article></body></html>', 'text/html'));
  await using proc = await spawnStdio(bin, { args: ['--allow-private-ips', '--ignore-robots-txt'] });
  const page = await proc.client.callTool({ name: 'fetch', arguments: { url: `${site.origin}/` } });
  expect(page.isError).toBeFalsy();
  expect(text(page)).toBe(`Contents of ${site.origin}/:\nPrivate page.`);
  // Cloud metadata stays refused, as with --allow-private-network (refused before any connection).
  const metadata = await proc.client.callTool({ name: 'fetch', arguments: { url: 'http://169.254.169.254/' } });
  expect(text(metadata)).toContain('is a cloud metadata address');
  const { stdout } = await runBin(bin, { args: ['--help'] });
  expect(stdout).toMatch(/--allow-private-network +Allow loopback, .* \(also --allow-private-ips; env FETCH_ALLOW_PRIVATE_NETWORK\)/);
});

it('exits 2 with one line naming the flag for a bad --allow-host', async () => {
  const run = await runBin(bin, { args: ['--allow-host', 'example.com:http'] });
  expect(run.code).toBe(2);
  expect(run.stderr.trim()).toBe(
    'mcp-server-fetch: invalid value for --allow-host: "example.com:http" has an invalid port (see mcp-server-fetch --help)',
  );
});

it('converts in the shipped worker: stays responsive during a pathological page, stops it at --timeout, exits on SIGTERM in the middle of one', async () => {
  await using site = await startServer(
    routes({ '/deeper': send(deepPage(50_000), 'text/html'), '/deep': send(deepPage(5_000), 'text/html') }),
  );
  await using proc = await spawnStdio(bin, {
    args: ['--allow-host', `127.0.0.1:${site.port}`, '--ignore-robots-txt', '--timeout', '3s', '--log-level', 'debug'],
  });

  const url = `${site.origin}/deeper`;
  const started = performance.now();
  const call = proc.client.callTool({ name: 'fetch', arguments: { url } });
  await vi.waitFor(() => expect(site.hits('/deeper')).toBeGreaterThan(0), { timeout: 15_000, interval: 10 });
  let settled = false;
  void call.finally(() => {
    settled = true;
  });
  const pings: number[] = [];
  // The probe's pace, 1/60 of the 3 s limit: not a wait for anything (the race ends it when the call settles).
  const pingEveryMs = 3000 / 60;
  while (!settled) {
    const t = performance.now();
    await proc.client.ping();
    pings.push(performance.now() - t);
    await Promise.race([sleep(pingEveryMs), call]);
  }
  const result = await call;
  // The contract is the 3 s conversion limit: the call ends within a factor of it (its timer and the worker's
  // termination may run late on a loaded machine, never five limits late), not at a wall-clock figure.
  expect(performance.now() - started).toBeLessThan(3000 * 5);
  expect([
    `Failed to fetch ${url}: the response arrived, but converting it to text did not finish within the 3 s limit (raise it with --timeout)`,
    `Failed to fetch ${url}: the page is nested too deeply to be converted to Markdown (raw: true returns it unconverted)`,
  ]).toContain(text(result));
  // The conversion runs in a worker: pings are answered while it runs, none of them held for the conversion's
  // length (a blocked main thread would answer the first ping only when the 3 s limit struck).
  expect(pings.length).toBeGreaterThan(0);
  expect(Math.max(...pings)).toBeLessThan(3000);

  // SIGTERM while the worker converts: the process shuts down at once instead of when the page is done.
  const closed = new Promise<void>((resolve) => {
    proc.client.onclose = resolve;
  });
  let converting!: () => void;
  const conversionStarted = new Promise<void>((resolve) => {
    converting = resolve;
  });
  void proc.client
    .callTool(
      { name: 'fetch', arguments: { url: `${site.origin}/deep` } },
      {
        onprogress: (p) => p.message?.startsWith('Converting') && converting(),
      },
    )
    .catch(() => {});
  await conversionStarted;
  process.kill(proc.transport.pid as number, 'SIGTERM');
  await closed;
  expect(proc.stderr()).toContain('shutting down: SIGTERM');
  expect(proc.stderr()).not.toContain('shutdown took over 5s');
});

it("an idle conversion worker does not keep a library user's process alive", async () => {
  await using site = await startServer(send('<html><body><article><p>Converted in dist/convertWorker.js.</p></article></body></html>'));
  const dir = mkdtempSync(join(tmpdir(), 'fetch-idle-'));
  try {
    const script = join(dir, 'idle.mjs');
    // No fetcher.close(): the process must still end once its own work is done.
    writeFileSync(
      script,
      `import { createFetcher } from ${JSON.stringify(new URL('../dist/server.js', import.meta.url).href)};
const fetcher = createFetcher({ allowHosts: ['127.0.0.1:${site.port}'] });
const page = await fetcher.fetchPage('${site.origin}/', { userAgent: 'test' });
process.stdout.write(page.content);
`,
    );
    const run = await runBin(script, { timeoutMs: 20_000 });
    expect(run.stdout).toBe('Converted in dist/convertWorker.js.');
    expect(run.code).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
