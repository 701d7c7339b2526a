import type { McpServer } from '@modelcontextprotocol/server';

/**
 * What a server package hands the runner: a factory that builds a fresh, fully registered
 * `McpServer` (one per client session over HTTP, one per process over stdio), and an optional
 * `close` for what the factory's instances share (a store, a cache).
 */
export interface ServerApp {
  createServer(): McpServer;
  close?(): void | Promise<void>;
}

/** A running transport: `close` ends every session and releases the port or stdin. */
export interface RunningServer {
  close(): Promise<void>;
}
