import type { ServerApp } from './types.js';
import type { RunningWsServer, WsOptions } from './ws.js';

export type { RunningWsServer, WsOptions };

/**
 * Serves `app` over WebSocket at `/mcp` (subprotocol `mcp`; not an MCP specification transport), plus `/healthz`:
 * one server from `app.createServer()` per connection. Like `serveHttp`, the runner (and the `ws` library) loads
 * on the first call, so importing the package does not load it.
 */
export async function serveWs(app: ServerApp, options: WsOptions): Promise<RunningWsServer> {
  return (await import('./ws.js')).serveWs(app, options);
}
