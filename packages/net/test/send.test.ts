/** send.ts: one hop through the pinned dispatchers, against the deadline, replayed once after a reset (loopback only). */
import { describe, expect, it, vi } from 'vitest';
import { startDeadline } from '../src/deadline.js';
import { createDispatchers } from '../src/dispatchers.js';
import { HttpError } from '../src/errors.js';
import { send } from '../src/send.js';
import { loopback } from './loopback.js';

const loopbackOnly = async () => [{ address: '127.0.0.1', family: 4 as const }];
const dispatchersFor = (allowPrivateNetwork: boolean) =>
  createDispatchers({ policy: { allowPrivateNetwork, allowHosts: [] }, resolve: loopbackOnly, timeoutMs: 5_000 });

describe('send', () => {
  it('sends the request and resolves to the response', async () => {
    await using server = await loopback((req, res) => res.end(`${req.method} ${req.headers['x-test']}`));
    const dispatchers = dispatchersFor(true);
    const deadline = startDeadline({ timeoutMs: 5_000 });
    const target = new URL(`${server.origin}/`);
    const response = await send(dispatchers, { target, strictness: 'no-metadata', context: '' }, deadline, {
      method: 'GET',
      headers: { 'x-test': 'yes' },
    });
    expect(await response.body.text()).toBe('GET yes');
    deadline.finish();
    await dispatchers.close();
  });

  it("turns the pinned lookup's refusal into HttpError('blocked'), with the hop's context", async () => {
    await using server = await loopback((_req, res) => res.end());
    const dispatchers = dispatchersFor(false);
    const deadline = startDeadline({ timeoutMs: 5_000 });
    const target = new URL(`http://app.test:${server.port}/`);
    const error = await send(dispatchers, { target, strictness: 'public-only', context: 'redirected to x; ' }, deadline, {
      method: 'GET',
      headers: {},
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({
      kind: 'blocked',
      message: expect.stringMatching(/^redirected to x; refused to connect: app\.test resolves to 127\.0\.0\.1/),
    });
    expect(server.seen).toHaveLength(0);
    deadline.finish();
    await dispatchers.close();
  });

  it('gives up at the deadline when the server never answers', async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    await using server = await loopback(() => arrived()); // never answers
    const dispatchers = dispatchersFor(true);
    // The deadline on a driven clock: the request waits on a server that never answers until the 150 ms strike.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const deadline = startDeadline({ timeoutMs: 150 });
      let settled = false;
      const pending = send(dispatchers, { target: new URL(`${server.origin}/`), strictness: 'no-metadata', context: '' }, deadline, {
        method: 'GET',
        headers: {},
      })
        .catch((e: unknown) => e)
        .finally(() => {
          settled = true;
        });
      await requestArrived;
      await vi.advanceTimersByTimeAsync(149);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const error = await pending;
      expect(deadline.timedOut()).toBe(true);
      expect(deadline.failure(error)).toMatchObject({ kind: 'timeout' });
      deadline.finish();
    } finally {
      vi.useRealTimers();
    }
    await dispatchers.close();
  });

  it('sends a GET once more on a new connection when its connection is reset before the answer, but not a POST', async () => {
    await using server = await loopback((req, res) => {
      // The first request of each method has its connection reset; the next one is answered.
      if (server.seen.filter((s) => s.method === req.method).length === 1) {
        req.socket.destroy();
        return;
      }
      res.end(`answered ${req.method}`);
    });
    const dispatchers = dispatchersFor(true);
    const hop = { target: new URL(`${server.origin}/`), strictness: 'no-metadata' as const, context: '' };
    const deadline = startDeadline({ timeoutMs: 5_000 });
    const got = await send(dispatchers, hop, deadline, { method: 'GET', headers: {} });
    expect(await got.body.text()).toBe('answered GET');
    expect(server.seen.map((s) => s.method)).toEqual(['GET', 'GET']);
    const posted = await send(dispatchers, hop, deadline, { method: 'POST', headers: {}, body: new TextEncoder().encode('x') }).catch(
      (e: unknown) => e,
    );
    expect(posted).toBeInstanceOf(Error);
    expect(server.seen.map((s) => s.method)).toEqual(['GET', 'GET', 'POST']);
    deadline.finish();
    await dispatchers.close();
  });
});
