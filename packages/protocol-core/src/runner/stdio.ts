import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { forEra } from '../skills/support.js';
import { createDrain, createRequestCounter } from './drain.js';
import { JsonRpcStdioTransport } from './stdioTransport.js';
import type { RunningServer, ServerApp } from './types.js';

export interface RunningStdioServer extends RunningServer {
  /** Resolves when stdin has ended (the client went away). */
  ended: Promise<void>;
  /**
   * Stops taking requests (a new one is answered -32000 "the server is shutting down") and resolves once every
   * request taken is answered (`true`) or `graceMs` has passed (`false`). `close` after it; stdin's end needs none.
   */
  drain(graceMs: number): Promise<boolean>;
}

/**
 * Serves `app` on this process's stdin/stdout, both protocol eras: the SDK's `serveStdio` pins the
 * connection to the era its opening selects (`initialize` → 2025-11-25, `server/discover` or an enveloped
 * request → 2026-07-28) and builds one server from `app.createServer` for it. Nothing else may write to
 * stdout. Our transport stays underneath: input that is not JSON-RPC gets a JSON-RPC error (-32700,
 * -32600), not silence, and a line over 10 MiB is refused with -32600 (`stdioTransport.ts`).
 */
export async function serveStdio(app: ServerApp, stdin = process.stdin, stdout = process.stdout): Promise<RunningStdioServer> {
  const drain = createDrain();
  const transport = new JsonRpcStdioTransport(stdin, stdout, {
    counter: createRequestCounter(drain),
    ...(app.preflight ? { preflight: (message: unknown) => app.preflight?.(message) } : {}),
  });
  const ended = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  const handle = sdkServeStdio(
    forEra((context) => app.createServer(context)),
    { transport },
  );
  let closed = false;
  return {
    ended,
    drain: (graceMs) => drain.settle(graceMs),
    async close() {
      if (closed) return;
      closed = true;
      await handle.close();
      await app.close?.();
    },
  };
}
