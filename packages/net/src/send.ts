/** One request (one hop) through the pinned dispatchers, against the request's deadline. */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Deadline } from './deadline.js';
import type { Dispatchers } from './dispatchers.js';
import { findCause, HttpError, isConnectionReset } from './errors.js';
import { BlockedDestinationError, type Strictness } from './policy.js';

export interface SendInit {
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: Uint8Array | Readable;
}

export interface Hop {
  target: URL;
  /** How strictly the connection's address is checked (which pinned dispatcher). */
  strictness: Strictness;
  /** Put before a refusal's message: empty for the URL itself, `redirected to <url>; ` for a redirect target. */
  context: string;
}

/**
 * Sends one request through the dispatcher pinned for `hop.strictness`, raced against `deadline` (a
 * response that comes after it is dropped); a refusal by the pinned lookup becomes HttpError('blocked').
 */
export async function send(dispatchers: Dispatchers, hop: Hop, deadline: Deadline, init: SendInit): Promise<Dispatcher.ResponseData> {
  const { request } = await dispatchers.undici();
  const { target, strictness, context } = hop;
  // A GET or HEAD without a body whose connection is reset before any response is sent once more, on a
  // connection of its own: a kept-alive socket the server closed just as it was reused (its idle timeout
  // racing ours, common on a loaded machine) says nothing about the server, and the pool's other idle
  // sockets may be just as stale. Only once, and never after the deadline or the caller's abort.
  const replayable = (init.method === 'GET' || init.method === 'HEAD') && init.body === undefined;
  for (let attempt = 0; ; attempt++) {
    const fresh = attempt > 0 ? await dispatchers.create(strictness) : undefined;
    try {
      const pending = request(target, {
        ...init,
        dispatcher: fresh ?? (await dispatchers.pooled(strictness)),
        signal: deadline.controller.signal,
        headersTimeout: deadline.timeoutMs,
        bodyTimeout: deadline.timeoutMs,
      });
      pending.then((late) => deadline.ended() && late.body.destroy()).catch(() => {});
      // A one-off dispatcher closes once its request is over (body included): close() waits for it.
      if (fresh) pending.finally(() => fresh.close().catch(() => {})).catch(() => {});
      return await Promise.race([pending, deadline.expired]);
    } catch (error) {
      const blocked = findCause(error, (e): e is BlockedDestinationError => e instanceof BlockedDestinationError);
      if (blocked) throw new HttpError('blocked', context + blocked.message, { cause: error });
      if (attempt === 0 && replayable && !deadline.ended() && isConnectionReset(error)) continue;
      throw error;
    }
  }
}
