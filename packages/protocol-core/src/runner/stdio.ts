import { JsonRpcStdioTransport } from './stdioTransport.js';
import type { RunningServer, ServerApp } from './types.js';

export interface RunningStdioServer extends RunningServer {
  /** Resolves when stdin has ended (the client went away). */
  ended: Promise<void>;
}

/**
 * Serves one `McpServer` from `app` on this process's stdin/stdout. Nothing else may write to stdout.
 * Input that is not JSON-RPC gets a JSON-RPC error (-32700, -32600), not silence (`stdioTransport.ts`).
 */
export async function serveStdio(app: ServerApp, stdin = process.stdin, stdout = process.stdout): Promise<RunningStdioServer> {
  const server = app.createServer();
  const transport = new JsonRpcStdioTransport(stdin, stdout);
  const ended = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  await server.connect(transport);
  let closed = false;
  return {
    ended,
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
      await app.close?.();
    },
  };
}
