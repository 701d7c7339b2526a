import type { HttpOptions, RunningHttpServer } from './http.js';
import type { ServerApp } from './types.js';

export type { HttpOptions, RunningHttpServer };

/**
 * Serves `app` over Streamable HTTP (`/mcp`) or legacy HTTP+SSE (`/sse` + `/messages`), plus
 * `/healthz`. Every client session gets its own `McpServer` from `app.createServer()`, so nothing
 * (responses, notifications, per-session state) is shared between clients (GHSA-345p-7cg4-v4c7).
 *
 * The HTTP runner (with the SDK's HTTP transports) loads on the first call: importing the package
 * does not load it, and a server bin's start-up does not compile it (the bins' lazy chunks keep it out
 * of the files they load at start, which a static re-export from the index would not).
 */
export async function serveHttp(app: ServerApp, options: HttpOptions): Promise<RunningHttpServer> {
  return (await import('./http.js')).serveHttp(app, options);
}
