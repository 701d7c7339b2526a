/**
 * Cancellation: a client that aborts a call (the SDK sends `notifications/cancelled`) stops the work
 * on the server: the connection to the site is closed (robots.txt, redirects and the body alike), a
 * running conversion's worker is terminated, no result is sent, and the server goes on serving.
 */
import { createLogger } from '@mcpkit/protocol-core';
import type { InMemoryPair } from '@mcpkit/protocol-core/testing';
import type { Progress } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { callFetch, connect, deepPage, endless, redirect, routes, send, sourceWorker, startServer, text } from './helpers.js';

// Building the worker from source (tsup) is set-up, not what these tests time: done once, before them, with
// room for a loaded machine, instead of inside whichever test asks first.
beforeAll(() => sourceWorker(), 120_000);

/** Errors the client saw; a response to a request it cancelled shows up here ("unknown message ID"). */
function clientErrors(pair: InMemoryPair): Error[] {
  const errors: Error[] = [];
  pair.client.onerror = (error) => errors.push(error);
  return errors;
}

async function until(condition: () => boolean): Promise<void> {
  // State, not time: vi.waitFor polls it (bounded well inside the test's own limit).
  await vi.waitFor(
    () => {
      if (!condition()) throw new Error('condition not met');
    },
    { timeout: 15_000, interval: 10 },
  );
}

describe('a cancelled fetch', () => {
  it('closes the download (after a redirect), sends no result, and the server serves the next call', async () => {
    const body = endless();
    await using site = await startServer(
      routes({ '/hop': redirect('/endless', 302), '/endless': body.handler, '/ok': send('still here', 'text/plain') }),
    );
    await using pair = await connect({ allowHosts: [`127.0.0.1:${site.port}`], ignoreRobotsTxt: true, timeoutMs: 60_000 });
    const errors = clientErrors(pair);
    const controller = new AbortController();
    const seen: Progress[] = [];
    const call = pair.client.callTool(
      { name: 'fetch', arguments: { url: `${site.origin}/hop` } },
      {
        signal: controller.signal,
        onprogress: (p) => {
          seen.push(p);
          if (seen.length === 2) controller.abort();
        },
      },
    );
    await expect(call).rejects.toThrow(/abort/i);
    // The site sees the connection go (without cancellation it would stay open for the 60 s timeout).
    await body.closed;
    expect(seen.map((p) => p.message)).toEqual([expect.stringMatching(/^Downloaded /), expect.stringMatching(/^Downloaded /)]);
    expect(seen[1]!.progress).toBeGreaterThan(seen[0]!.progress);

    const next = await callFetch(pair, { url: `${site.origin}/ok` });
    expect(text(next)).toContain('still here');
    expect(errors).toEqual([]);
  });

  it('closes the download of the fetch prompt too', async () => {
    const body = endless();
    await using site = await startServer(routes({ '/endless': body.handler }));
    await using pair = await connect({ allowHosts: [`127.0.0.1:${site.port}`], timeoutMs: 60_000 });
    const errors = clientErrors(pair);
    const controller = new AbortController();
    const call = pair.client.getPrompt({ name: 'fetch', arguments: { url: `${site.origin}/endless` } }, { signal: controller.signal });
    await body.opened;
    controller.abort();
    await expect(call).rejects.toThrow(/abort/i);
    await body.closed;
    await pair.client.ping();
    expect(errors).toEqual([]);
  });

  it('closes a robots.txt fetch that has not answered yet; nothing is cached', async () => {
    let robotsSeen = 0;
    let robotsClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      robotsClosed = resolve;
    });
    await using site = await startServer(
      routes({
        // The first robots.txt request never gets an answer; the next ones find none (404: allowed).
        '/robots.txt': (req, res) => {
          robotsSeen++;
          if (robotsSeen > 1) {
            res.statusCode = 404;
            res.end();
            return;
          }
          req.socket.once('close', () => robotsClosed());
        },
        '/page': send('the page', 'text/plain'),
      }),
    );
    // Without cancellation the robots.txt request would stay open for a minute.
    await using pair = await connect({ allowHosts: [`127.0.0.1:${site.port}`], timeoutMs: 60_000, robotsTimeoutMs: 60_000 });
    const errors = clientErrors(pair);
    const controller = new AbortController();
    const call = pair.client.callTool(
      { name: 'fetch', arguments: { url: `${site.origin}/page` } },
      {
        signal: controller.signal,
      },
    );
    await until(() => robotsSeen === 1);
    controller.abort();
    await expect(call).rejects.toThrow(/abort/i);
    await closed;
    expect(site.hits('/page')).toBe(0);

    // robots.txt is asked again (the cancelled fetch left nothing in the cache), then the page.
    const next = await callFetch(pair, { url: `${site.origin}/page` });
    expect(text(next)).toContain('the page');
    expect(robotsSeen).toBe(2);
    expect(errors).toEqual([]);
  });

  it('terminates the worker of a running conversion', async () => {
    const lines: string[] = [];
    const logger = createLogger({ name: 't', level: 'debug', write: (line) => lines.push(line) });
    await using site = await startServer(
      routes({ '/deep': send(deepPage(5_000), 'text/html'), '/small': send('<html><body><p>Small page</p></body></html>', 'text/html') }),
    );
    await using pair = await connect({
      allowHosts: [`127.0.0.1:${site.port}`],
      ignoreRobotsTxt: true,
      timeoutMs: 60_000,
      conversionWorker: await sourceWorker(),
      logger,
    });
    const errors = clientErrors(pair);
    const controller = new AbortController();
    const call = pair.client.callTool(
      { name: 'fetch', arguments: { url: `${site.origin}/deep` } },
      {
        signal: controller.signal,
        onprogress: (p) => {
          if (p.message?.startsWith('Converting')) controller.abort();
        },
      },
    );
    await expect(call).rejects.toThrow(/abort/i);
    // Without cancellation the conversion would run on (the timeout is a minute away).
    await until(() => lines.some((l) => l.includes(`conversion of ${site.origin}/deep stopped on cancel; its worker was terminated`)));

    const next = await callFetch(pair, { url: `${site.origin}/small` });
    expect(text(next)).toContain('Small page');
    expect(errors).toEqual([]);
    expect(lines.join('')).not.toMatch(/failed unexpectedly/);
  });
});
