/**
 * Draining for a deploy that cuts nothing (SIGTERM, SIGINT): the runner stops taking new work at once (readiness
 * fails, a new request or session gets 503 with `Retry-After`), lets the calls in flight finish within the
 * shutdown grace, and only then ends its streams and closes. This module keeps the count of what is in flight and
 * the wait for it; the transports say when a call begins and ends (`enter`), the runner when the drain begins.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';

/** The `Retry-After` (seconds) of an answer refused while draining: time for the load balancer to send it elsewhere. */
export const DRAIN_RETRY_AFTER_S = 1;

/** The longest delay a Node timer takes (a longer one fires at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Default `--shutdown-grace`, ms. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 30_000;

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface Drain {
  /** Whether the drain has begun: from then on nothing new is taken. */
  readonly draining: boolean;
  /** Calls in flight now. */
  readonly inFlight: number;
  /** A call began; the returned function ends it (once; more calls do nothing). */
  enter(): () => void;
  /** Begins the drain and resolves once nothing is in flight (`true`), or when `graceMs` has passed (`false`). */
  settle(graceMs: number): Promise<boolean>;
}

export function createDrain(timers: Timers = realTimers): Drain {
  let draining = false;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  return {
    get draining() {
      return draining;
    },
    get inFlight() {
      return inFlight;
    },
    enter() {
      inFlight++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        inFlight--;
        if (inFlight === 0) idle?.();
      };
    },
    settle(graceMs) {
      draining = true;
      if (inFlight === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = timers.setTimeout(
          () => {
            idle = undefined;
            resolve(false);
          },
          Math.min(graceMs, MAX_TIMER_MS),
        );
        idle = () => {
          idle = undefined;
          timers.clearTimeout(timer);
          resolve(true);
        };
      });
    },
  };
}

type Id = string | number;

/** Whether a request of this HTTP method is refused as soon as the drain begins: a GET opens a stream or a session. */
export function refuseWhileDraining(method: string | undefined): boolean {
  return method === 'GET';
}

/** Whether a parsed POST body holds a request (not only answers and notifications): new work, refused while draining. */
export function carriesRequest(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => typeof m === 'object' && m !== null && 'method' in m && 'id' in m);
}

function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & { id: Id; method: string } {
  return 'method' in message && 'id' in message && message.id !== undefined && message.id !== null;
}

function isResponse(message: JSONRPCMessage): message is JSONRPCMessage & { id: Id } {
  return !('method' in message) && 'id' in message && ('result' in message || 'error' in message);
}

export interface RequestCounter {
  /** A message from the client; `false` for a request refused because the drain has begun (answer it with `refusal`). */
  received(message: JSONRPCMessage): boolean;
  /** A message to the client: an answer ends its request's call. */
  sent(message: JSONRPCMessage): void;
  /** The connection closed: nothing of it is in flight any more. */
  closed(): void;
}

/**
 * Counts the client's requests on one connection as calls of `drain`, from the request in to its answer out, for
 * the transports whose answers do not ride on the request's own HTTP response (stdio, legacy SSE).
 */
export function createRequestCounter(drain: Drain): RequestCounter {
  const pending = new Map<Id, () => void>();
  return {
    received(message) {
      if (!isRequest(message)) return true;
      if (drain.draining) return false;
      pending.get(message.id)?.();
      pending.set(message.id, drain.enter());
      return true;
    },
    sent(message) {
      if (!isResponse(message)) return;
      pending.get(message.id)?.();
      pending.delete(message.id);
    },
    closed() {
      for (const end of pending.values()) end();
      pending.clear();
    },
  };
}

/** The answer to a request refused while draining. */
function drainRefusal(id: Id, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: -32000, message } } as JSONRPCMessage;
}

/**
 * `createRequestCounter` on an SDK transport: wraps its `onmessage`, `send` and `onclose`, so call it after
 * `server.connect(transport)` (which sets them). A request refused while draining is answered `refusal` at once.
 */
export function countRequests(transport: Transport, drain: Drain, refusal: string): void {
  const counter = createRequestCounter(drain);
  const receive = transport.onmessage;
  const send = transport.send.bind(transport);
  const closed = transport.onclose;
  transport.onmessage = (message, extra) => {
    if (counter.received(message)) receive?.(message, extra);
    else if (isRequest(message)) void send(drainRefusal(message.id, refusal)).catch(() => {});
  };
  transport.send = async (message, options) => {
    try {
      return await send(message, options);
    } finally {
      counter.sent(message);
    }
  };
  transport.onclose = () => {
    counter.closed();
    closed?.();
  };
}
