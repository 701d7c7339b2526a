import type { McpRequestContext, McpServer, ServerEventBus } from '@modelcontextprotocol/server';
import type { ScopeDeclaration } from '../auth/scopes.js';

/**
 * What a server package hands the runner: a factory that builds a fresh, fully registered
 * `McpServer` (one per client session over HTTP, one per process over stdio), and an optional
 * `close` for what the factory's instances share (a store, a cache).
 */
export interface ServerApp {
  /** `context`: what the SDK says of the instance it asks for (its era; HTTP only: the request), where the runner has it. */
  createServer(context?: McpRequestContext): McpServer;
  close?(): void | Promise<void>;
  /**
   * Where the app publishes changes for 2026 `subscriptions/listen` streams over HTTP (`createListenBus`);
   * without it, HTTP listeners hear no changes. stdio needs none: the SDK routes the instance's own notifications.
   */
  bus?: ServerEventBus;
  /**
   * Instead of `bus`, when what a stream may hear depends on who asks (memory's `--graph-per-user`: each user
   * hears their own graph): the bus for the `subscriptions/listen` request the SDK built `context` for
   * (`context.authInfo` is the caller's checked token). Called once per stream, when it opens; over HTTP only.
   */
  listenBus?(context: McpRequestContext): ServerEventBus;
  /**
   * The OAuth scopes its tools need when the server runs with `--oauth-issuer` (e.g. memory: reading tools
   * `memory:read`, writing tools `memory:write`); the operator may rename them (`--oauth-scope-map`).
   */
  scopes?: ScopeDeclaration;
  /**
   * Whether the app can serve now, for `/readyz` (HTTP): e.g. memory on PostgreSQL pings its database. Bounded and
   * cheap (the runner caches the answer a second and gives it 2 s); `reason` says what is missing, without secrets.
   * Without it, the app is ready whenever the process is.
   */
  ready?(): Promise<Readiness>;
  /**
   * A JSON-RPC error to answer a request with before the SDK sees it, or `undefined` to serve it (HTTP and
   * stdio). The tasks extension's `preflight` fits: -32021 for a required-task tool called without the extension.
   */
  preflight?(message: unknown): { code: number; message: string; data?: unknown } | undefined;
}

/** What `ServerApp.ready` answers. */
export interface Readiness {
  ok: boolean;
  reason?: string;
}

/** A running transport: `close` ends every session and releases the port or stdin. */
export interface RunningServer {
  close(): Promise<void>;
}
