/**
 * Requests the SDK client cannot carry for us, sent on its own connected transport. SDK 2.4's
 * 2026-07-28 codec rejects a `tools/call` answered with `resultType: "task"` (SEP-2663) before the
 * caller sees the task id, and has no `tasks/*` methods. So these requests go out through the
 * transport's public `send` with ids of their own (`mcpkit-raw-<n>`: the SDK numbers its own), and
 * their responses are taken off its public `onmessage` before the SDK sees them; every other
 * message goes on to the SDK untouched. Over Streamable HTTP the transport sets `Mcp-Method` and,
 * for `tasks/*`, `Mcp-Name: <taskId>` from the body, as for the SDK's own requests.
 */
import type { Client, JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

const ID_PREFIX = 'mcpkit-raw-';

/** A JSON-RPC error answer, as the server sent it. */
export class RawRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RawRequestError';
  }
}

/** The request's deadline passed without an answer. */
export class RawRequestTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'RawRequestTimeout';
  }
}

interface RawRequestOptions {
  signal?: AbortSignal;
  /** Default 60 s. */
  timeoutMs?: number;
}

export interface RawChannel {
  /** Resolves with the result object (whatever its shape); rejects with `RawRequestError`, `RawRequestTimeout` or the abort reason. */
  request(method: string, params: Record<string, unknown>, options?: RawRequestOptions): Promise<Record<string, unknown>>;
  /** Put the transport's handler back and fail what is pending. */
  close(): void;
}

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(error: unknown): void;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A channel on `client`'s transport (after `connect`); undefined when it has none. */
export function openRawChannel(client: Client): RawChannel | undefined {
  const transport: Transport | undefined = client.transport;
  if (!transport) return undefined;
  const pending = new Map<string, Pending>();
  let next = 0;
  let closed = false;
  const previous = transport.onmessage;
  const deliver = previous?.bind(transport);

  transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
    const id = (message as { id?: unknown }).id;
    if (typeof id === 'string' && id.startsWith(ID_PREFIX) && !('method' in message)) {
      const waiting = pending.get(id);
      if (!waiting) return; // answered after a timeout or cancel: nobody waits, and the SDK never asked
      pending.delete(id);
      const error = (message as { error?: unknown }).error;
      if (isObject(error)) {
        const code = typeof error.code === 'number' ? error.code : -32603;
        waiting.reject(new RawRequestError(code, typeof error.message === 'string' ? error.message : 'error', error.data));
        return;
      }
      const result = (message as { result?: unknown }).result;
      if (isObject(result)) waiting.resolve(result);
      else waiting.reject(new RawRequestError(-32603, 'the answer has no result object'));
      return;
    }
    (deliver as ((message: JSONRPCMessage, extra?: unknown) => void) | undefined)?.(message, extra);
  };

  return {
    request(method, params, options = {}) {
      if (closed) return Promise.reject(new RawRequestError(-32000, 'the connection is closed'));
      const { signal, timeoutMs = 60_000 } = options;
      if (signal?.aborted) return Promise.reject(signal.reason);
      next += 1;
      const id = `${ID_PREFIX}${next}`;
      return new Promise<Record<string, unknown>>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          pending.delete(id);
        };
        const onAbort = () => {
          done();
          reject(signal?.reason);
        };
        const timer = setTimeout(() => {
          done();
          reject(new RawRequestTimeout(timeoutMs));
        }, timeoutMs);
        signal?.addEventListener('abort', onAbort, { once: true });
        pending.set(id, {
          resolve: (result) => {
            done();
            resolve(result);
          },
          reject: (error) => {
            done();
            reject(error);
          },
        });
        transport.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage).catch((error: unknown) => {
          done();
          reject(error);
        });
      });
    },
    close() {
      if (closed) return;
      closed = true;
      if (transport.onmessage !== previous) transport.onmessage = previous;
      for (const waiting of pending.values()) waiting.reject(new RawRequestError(-32000, 'the connection is closed'));
      pending.clear();
    },
  };
}
