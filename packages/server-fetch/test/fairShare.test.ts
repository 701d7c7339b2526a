/**
 * Sessions share the conversion workers fairly (issue 22, item 5): real SDK clients over Streamable
 * HTTP against the runner, pages served from 127.0.0.1. A deeply nested page keeps a worker busy
 * until the deadline, so a client that sends several holds workers for the whole `--timeout`. No test
 * sleeps: each waits on state (requests seen, "Converting" heartbeats), and deadlines are only what
 * a test is about or far beyond anything a loaded runner takes.
 */
import { startHttp } from '@mcpkit/protocol-core/testing';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createFetcher, createFetchServer, type Fetcher } from '../src/server.js';
import { connect, deepPage, type Handler, routes, send, sourceWorker, startServer, text } from './helpers.js';

// Building the worker from source (tsup) is set-up, not what these tests time: done once, before them, with
// room for a loaded machine, instead of inside whichever test asks first.
beforeAll(() => sourceWorker(), 120_000);

const TINY = '<html><body><article><p>Tiny page.</p></article></body></html>';
const SLOW = deepPage(3_000); // minutes of Readability: occupies its worker until the deadline

async function until(condition: () => boolean): Promise<void> {
  // State, not time: vi.waitFor polls it (bounded well inside the test's own limit).
  await vi.waitFor(
    () => {
      if (!condition()) throw new Error('condition not met');
    },
    { timeout: 15_000, interval: 10 },
  );
}

function fetchWith(client: Client, url: string, onConverting?: () => void): Promise<CallToolResult> {
  // A progress heartbeat that says "Converting" means the call reached the conversion step.
  const onprogress = onConverting && ((p: { message?: string }) => p.message?.startsWith('Converting') && onConverting());
  return client.callTool({ name: 'fetch', arguments: { url } }, onprogress ? { onprogress } : {}) as Promise<CallToolResult>;
}

/** Serves each of `paths` the slow page, plus `extra` routes. */
async function site(paths: string[], extra: Record<string, Handler> = {}) {
  return startServer(routes({ ...Object.fromEntries(paths.map((p) => [p, send(SLOW, 'text/html')])), ...extra }));
}

async function sharedFetcher(port: number, timeoutMs: number): Promise<Fetcher & AsyncDisposable> {
  const fetcher = createFetcher({
    allowHosts: [`127.0.0.1:${port}`],
    ignoreRobotsTxt: true,
    timeoutMs,
    conversionWorker: await sourceWorker(),
    maxConversionWorkers: 2,
  });
  return Object.assign(fetcher, { [Symbol.asyncDispose]: () => fetcher.close() });
}

describe('HTTP sessions share the conversion workers', () => {
  it("one session's flood of slow pages does not starve another session's tiny page", async () => {
    const slow = ['/slow-1', '/slow-2', '/slow-3', '/slow-4', '/slow-5', '/slow-6'];
    await using pages = await site(slow, { '/tiny': send(TINY, 'text/html') });
    // A's pages end only at their deadline, so none may end before B's tiny page does. The deadline is no
    // bound on B (which needs a worker start and one tiny conversion), it is far beyond that on any load:
    // with 10 s, a loaded runner let A's deadlines pass first and the test failed (issue 30).
    const timeoutMs = 60_000;
    await using fetcher = await sharedFetcher(pages.port, timeoutMs);
    await using http = await startHttp({ createServer: () => createFetchServer({ fetcher }) });
    const a = await http.connect();
    const b = await http.connect();

    let floodDone = 0;
    const floodConverting = new Set<string>();
    const flood = slow.map((p) =>
      fetchWith(a, pages.origin + p, () => floodConverting.add(p))
        .catch(() => undefined)
        .finally(() => {
          floodDone += 1;
        }),
    );
    // Every page of A reached the conversion step (1 running, the rest queued) before B asks.
    await until(() => floodConverting.size === slow.length);

    const tiny = await fetchWith(b, `${pages.origin}/tiny`);
    expect(tiny.isError ?? false).toBe(false);
    expect(text(tiny)).toBe(`Contents of ${pages.origin}/tiny:\nTiny page.`);
    // Order, not wall-clock time: session A runs on one worker (the other is kept for B) with 5 more queued, and
    // B's page takes the free worker. Served first come first served, it would wait behind A's pages until
    // their deadline, when they fail.
    expect(floodDone).toBe(0);
    void flood;
  }, 120_000);

  it('a page that gets no worker before its deadline fails saying the server is busy, not blaming the page', async () => {
    const timeoutMs = 3_000;
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // B's page arrives only once A's and C's slow pages hold both workers, so it has to wait past its deadline.
    await using pages = await site(['/slow-a', '/slow-c'], {
      '/late': async (_req, res) => {
        await released;
        send(TINY, 'text/html')(_req, res);
      },
    });
    await using fetcher = await sharedFetcher(pages.port, timeoutMs);
    await using http = await startHttp({ createServer: () => createFetchServer({ fetcher }) });
    const [a, b, c] = [await http.connect(), await http.connect(), await http.connect()];

    const late = fetchWith(b, `${pages.origin}/late`);
    await until(() => pages.hits('/late') === 1);
    // Both sessions have a free worker (each may hold one of the two), so converting means running.
    let converting = 0;
    const slowA = fetchWith(a, `${pages.origin}/slow-a`, () => converting++);
    const slowC = fetchWith(c, `${pages.origin}/slow-c`, () => converting++);
    await until(() => converting >= 2);
    release();

    const [resultB, resultA, resultC] = await Promise.all([late, slowA, slowC]);
    expect(resultB.isError).toBe(true);
    expect(text(resultB)).toMatch(
      new RegExp(
        `^Failed to fetch ${pages.origin}/late: the server is busy: the response arrived, but it waited [\\d.]+ m?s for a conversion worker`,
      ),
    );
    expect(text(resultB)).not.toContain('converting it to text did not finish');
    // The pages that were converting at their deadline are the ones blamed.
    for (const [result, path] of [
      [resultA, '/slow-a'],
      [resultC, '/slow-c'],
    ] as const) {
      expect(text(result)).toBe(
        `Failed to fetch ${pages.origin}${path}: the response arrived, but converting it to text did not finish within the 3 s limit (raise it with --timeout)`,
      );
    }
  });

  it('a session may keep 8 conversions waiting while others share the workers; one more is refused at once as busy', async () => {
    const slow = Array.from({ length: 10 }, (_, i) => `/slow-${i}`);
    await using pages = await site(slow);
    await using fetcher = await sharedFetcher(pages.port, 20_000);
    await using http = await startHttp({ createServer: () => createFetchServer({ fetcher }) });
    const [a] = [await http.connect(), await http.connect()];
    // 1 running (half of the 2 workers: the other is kept for the second session) + 8 waiting.
    const converting = new Set<string>();
    const first = slow.slice(0, 9).map((p) => fetchWith(a, pages.origin + p, () => converting.add(p)).catch(() => undefined));
    // All 9 reached the conversion step: the lane is full.
    await until(() => converting.size === 9);
    const url = pages.origin + slow[9];
    const refused = await fetchWith(a, url);
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(
      `Failed to fetch ${url}: the server is busy: this session already has 8 pages waiting for a conversion worker, which other sessions share; try again once those are done`,
    );
    void first;
  });
});

describe('one session (stdio, or a single HTTP client)', () => {
  it('still runs its conversions on every worker at once', async () => {
    await using pages = await site(['/slow-1', '/slow-2']);
    await using fetcher = await sharedFetcher(pages.port, 2_000);
    await using pair = await connect({ fetcher });
    const results = await Promise.all(
      ['/slow-1', '/slow-2'].map((p) => pair.client.callTool({ name: 'fetch', arguments: { url: pages.origin + p } })),
    );
    // Both were converting at the deadline: neither waited for the other's worker.
    for (const [i, result] of results.entries()) {
      expect(text(result)).toBe(
        `Failed to fetch ${pages.origin}/slow-${i + 1}: the response arrived, but converting it to text did not finish within the 2 s limit (raise it with --timeout)`,
      );
    }
  });
});
