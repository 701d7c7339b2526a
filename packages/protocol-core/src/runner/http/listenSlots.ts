/**
 * The slots of the process's 2026 `subscriptions/listen` streams over HTTP, shared fairly between principals.
 *
 * The SDK's handler keeps at most `maxListens` streams (`maxSubscriptions`), first come first served: one client
 * that opened them all left every other client with "Subscription limit reached". Here, in front of it:
 * - a principal (`listenPrincipal`) holds `maxPerPrincipal` streams at most; one more is refused;
 * - when the process's table is full, a new stream takes the slot of one whose client is gone (its connection
 *   closed or half-closed, not yet noticed), or else of the oldest stream of the principal holding the most,
 *   if that principal would still hold more than the newcomer; a listen stream carries no request of its
 *   client after it opens, so the oldest is also the longest idle. Only then is the new stream refused.
 * A slot is freed when its response closes, which is also when the SDK ends the stream (`webBridge.ts` aborts it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { JsonRpcId } from '../jsonRpcCheck.js';
import { sendJsonRpcError } from './body.js';
import { requestOwner } from './mcpSessions.js';

/**
 * Whose stream a request opens: the OAuth principal (the token's subject, or its client), or else the client's
 * address (with `--auth-token` every client holds the same token, so it tells no one apart). Behind a reverse
 * proxy every client has the proxy's address and shares one principal's streams.
 */
function listenPrincipal(req: IncomingMessage): string {
  return requestOwner(req) ?? `address:${req.socket.remoteAddress ?? 'unknown'}`;
}

/** Whether `body` is a `subscriptions/listen` request (a 2026 request is one message, never a batch). */
export function isListenRequest(body: unknown): body is { id: JsonRpcId; method: 'subscriptions/listen' } {
  return (
    typeof body === 'object' && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method === 'subscriptions/listen'
  );
}

interface Stream {
  principal: string;
  res: ServerResponse;
  opened: number;
}

export interface ListenSlotOptions {
  /** Open streams in the process at most (`--max-listens`). */
  maxListens: number;
  /** Open streams of one principal at most (`--max-listens-per-principal`). */
  maxPerPrincipal: number;
  logger: Logger;
}

export interface ListenSlots {
  /**
   * Takes a slot for the stream `req` opens on `res` (reclaiming one if the table is full and fairness allows), freed
   * when `res` closes; or answers the JSON-RPC error naming the limit and returns false.
   */
  admit(req: IncomingMessage, res: ServerResponse, id: JsonRpcId): Promise<boolean>;
  /** Open streams now. */
  readonly size: number;
}

/** Whether the client of a stream is gone though its response has not closed yet. */
function clientGone(res: ServerResponse): boolean {
  const socket = res.socket;
  return res.destroyed || !socket || socket.destroyed || !socket.writable || socket.readableEnded;
}

export function createListenSlots({ maxListens, maxPerPrincipal, logger }: ListenSlotOptions): ListenSlots {
  const streams = new Set<Stream>();
  /** Open streams per principal. */
  const held = new Map<string, Stream[]>();
  let opened = 0;

  const remove = (stream: Stream) => {
    if (!streams.delete(stream)) return;
    const list = held.get(stream.principal) ?? [];
    list.splice(list.indexOf(stream), 1);
    if (list.length === 0) held.delete(stream.principal);
  };

  /** Ends `stream`'s response and waits until its slot is free (and the SDK has ended the stream). */
  const reclaim = async (stream: Stream, why: string) => {
    logger.info(`a subscriptions/listen stream of ${stream.principal} was closed to make room: ${why}`);
    const closed = new Promise<void>((resolve) => stream.res.once('close', () => resolve()));
    stream.res.destroy();
    await closed;
    remove(stream);
  };

  /** The stream to close for a new one of `principal` when the table is full, and why. */
  const victim = (principal: string): { stream: Stream; why: string } | undefined => {
    for (const stream of streams) if (clientGone(stream.res)) return { stream, why: 'its client is gone' };
    const mine = held.get(principal)?.length ?? 0;
    let most: Stream[] | undefined;
    for (const list of held.values()) {
      if (!most || list.length > most.length || (list.length === most.length && list[0]!.opened < most[0]!.opened)) most = list;
    }
    if (!most || most.length <= mine + 1) return undefined;
    return { stream: most[0]!, why: `its principal holds ${most.length} of the ${maxListens} streams (--max-listens)` };
  };

  const refuse = (res: ServerResponse, id: JsonRpcId, message: string) => {
    logger.warn(`refused a subscriptions/listen stream: ${message}`);
    // In-band, as the SDK answers its own limit (HTTP 200, before any acknowledgement).
    sendJsonRpcError(res, 200, ErrorCode.InternalError, `Subscription limit reached: ${message}`, {}, id);
  };

  return {
    get size() {
      return streams.size;
    },
    async admit(req, res, id) {
      const principal = listenPrincipal(req);
      // Again after each reclaim: other streams may have opened meanwhile.
      for (;;) {
        const own = held.get(principal) ?? [];
        if (own.length >= maxPerPrincipal) {
          const gone = own.find((stream) => clientGone(stream.res));
          if (!gone) {
            refuse(
              res,
              id,
              `this client already has ${maxPerPrincipal} open subscriptions/listen streams (the server's --max-listens-per-principal); close one first`,
            );
            return false;
          }
          await reclaim(gone, 'its client is gone');
          continue;
        }
        if (streams.size < maxListens) break;
        const old = victim(principal);
        if (!old) {
          refuse(res, id, `the server has ${maxListens} open subscriptions/listen streams (its --max-listens); try again later`);
          return false;
        }
        await reclaim(old.stream, old.why);
      }
      if (res.destroyed) return false; // the new stream's client left while a slot was made
      const stream: Stream = { principal, res, opened: ++opened };
      streams.add(stream);
      const list = held.get(principal);
      if (list) list.push(stream);
      else held.set(principal, [stream]);
      res.once('close', () => remove(stream));
      return true;
    },
  };
}
