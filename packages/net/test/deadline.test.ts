/** deadline.ts: one deadline per request, the caller's abort, and what a failure under them becomes. */
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startDeadline } from '../src/deadline.js';
import { HttpError } from '../src/errors.js';
import { loopback } from './loopback.js';

describe('startDeadline', () => {
  // The deadline is a pure timer: the tests that wait for it drive a fake clock.
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires at timeoutMs: aborts the controller, rejects expired, and failures become timeouts naming the flag', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const deadline = startDeadline({ timeoutMs: 50, flag: '--timeout' });
    const expired = expect(deadline.expired).rejects.toThrow('deadline');
    await vi.advanceTimersByTimeAsync(49);
    expect(deadline.controller.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expired;
    expect(deadline.controller.signal.aborted).toBe(true);
    expect(deadline.timedOut()).toBe(true);
    expect(deadline.ended()).toBe(true);
    const cause = new Error('socket hang up');
    const failure = deadline.failure(cause);
    expect(failure).toBeInstanceOf(HttpError);
    expect(failure).toMatchObject({
      kind: 'timeout',
      message: 'no complete response within 50 ms (raise the limit with --timeout)',
      cause,
    });
    deadline.finish();
  });

  it('names whole seconds in seconds and gives no hint without a flag', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const deadline = startDeadline({ timeoutMs: 1_000 });
    const expired = expect(deadline.expired).rejects.toThrow();
    await vi.advanceTimersByTimeAsync(1_000);
    await expired;
    expect(deadline.failure(new Error('x'))).toMatchObject({ kind: 'timeout', message: 'no complete response within 1 s' });
  });

  it("ends at once when the caller's signal aborts, and a failure is then the signal's reason", async () => {
    const caller = new AbortController();
    const deadline = startDeadline({ timeoutMs: 5_000, signal: caller.signal });
    const reason = new Error('the client cancelled');
    caller.abort(reason);
    await expect(deadline.expired).rejects.toThrow('aborted');
    expect(deadline.controller.signal.aborted).toBe(true);
    expect(deadline.timedOut()).toBe(false);
    expect(deadline.ended()).toBe(true);
    expect(deadline.failure(new HttpError('too-large', 'over'))).toBe(reason);
    deadline.finish();
  });

  it("throws an already aborted signal's reason at once", () => {
    const reason = new Error('already gone');
    expect(() => startDeadline({ timeoutMs: 5_000, signal: AbortSignal.abort(reason) })).toThrow(reason);
  });

  it('finish stops the timer and stops listening to the signal', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const caller = new AbortController();
    const deadline = startDeadline({ timeoutMs: 30, signal: caller.signal });
    deadline.finish();
    deadline.finish();
    await vi.advanceTimersByTimeAsync(60);
    caller.abort();
    expect(deadline.timedOut()).toBe(false);
    expect(deadline.controller.signal.aborted).toBe(false);
  });

  it('before the deadline, an HttpError stays itself and a transport error becomes HttpError("connect")', async () => {
    const deadline = startDeadline({ timeoutMs: 5_000 });
    const own = new HttpError('redirects', 'too many');
    expect(deadline.failure(own)).toBe(own);
    // A real refused connection: a loopback port nobody listens on any more.
    let port: number;
    {
      await using server = await loopback((_req, res) => res.end());
      port = server.port;
    }
    const refused = await new Promise<Error>((resolve) => connect(port, '127.0.0.1').on('error', resolve));
    const failure = deadline.failure(new TypeError('fetch failed', { cause: refused }));
    expect(failure).toBeInstanceOf(HttpError);
    expect(failure).toMatchObject({
      kind: 'connect',
      message: expect.stringMatching(/^ConnectError\('connect ECONNREFUSED 127\.0\.0\.1:\d+'\)$/),
    });
    deadline.finish();
  });
});
