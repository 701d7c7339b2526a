/**
 * A configured proxy that accepts the connection, reads the request and never answers: only the configured
 * timeouts end the call, for robots.txt and for the page. The test drives those timeouts on vitest's fake clock,
 * moving it only once the proxy holds the request, so no stall of a loaded machine can make the deadline pass
 * before the request is sent, or a call look slow.
 *
 * This test has a file (a process) of its own: undici runs its header and body timeouts on one process-wide
 * ticker, started with the first request of the process. Here the first request is made on the fake clock, so that
 * ticker is on it too, and no undici timer can end a call behind the test's back on the wall clock.
 */

import { trackSettled } from '@mcpkit/test-utils/settled';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callFetch, connect, startSilentProxy, text } from './helpers.js';

const [TIMEOUT_MS, ROBOTS_TIMEOUT_MS] = [1000, 500];
const URL = 'http://93.184.215.14/page';

/** Starts `call` on the fake clock; once the proxy holds its request, moves the clock to its timeout and returns its result. */
async function endedByTimeout<T>(call: () => Promise<T>, proxy: { received(count: number): Promise<void> }, n: number, timeoutMs: number) {
  const promise = call();
  const settled = trackSettled(promise);
  await proxy.received(n);
  // The proxy never answers: a millisecond short of the timeout the call is still waiting, at the timeout it ends.
  await vi.advanceTimersByTimeAsync(timeoutMs - 1);
  expect(settled()).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect(settled()).toBe(true);
  return promise;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('through a configured proxy', () => {
  it('the timeout covers a proxy that never answers (page and robots.txt)', async () => {
    await using proxy = await startSilentProxy();
    await using pair = await connect({ proxyUrl: proxy.origin, timeoutMs: TIMEOUT_MS, robotsTimeoutMs: ROBOTS_TIMEOUT_MS });
    await using ignoring = await connect({ proxyUrl: proxy.origin, timeoutMs: TIMEOUT_MS, ignoreRobotsTxt: true });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const robots = await endedByTimeout(() => callFetch(pair, { url: URL }), proxy, 1, ROBOTS_TIMEOUT_MS);
      expect(text(robots)).toBe('Failed to fetch robots.txt http://93.184.215.14/robots.txt due to a connection issue');
      const page = await endedByTimeout(() => callFetch(ignoring, { url: URL }), proxy, 2, TIMEOUT_MS);
      expect(page.isError).toBe(true);
      expect(text(page)).toBe(`Failed to fetch ${URL}: no complete response within 1 s (raise the limit with --timeout)`);
      expect(proxy.requestLines()).toEqual(['GET http://93.184.215.14/robots.txt HTTP/1.1', 'GET http://93.184.215.14/page HTTP/1.1']);
    } finally {
      // The servers close on the wall clock (the fake one would never move again).
      vi.useRealTimers();
    }
  });
});
