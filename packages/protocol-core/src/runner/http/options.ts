import type { Server } from 'node:http';
import type { AuthGuard } from '../../auth/guard.js';
import type { Logger } from '../../logger.js';
import type { SessionEventStoreOptions } from '../../resumable.js';
import type { RunningServer } from '../types.js';

export interface HttpOptions {
  /** `http`: Streamable HTTP at `/mcp`. `sse`: legacy HTTP+SSE at `/sse` and `/messages`. */
  mode: 'http' | 'sse';
  host: string;
  /** 0 picks a free port; the bound one is in `url`. */
  port: number;
  /** Streamable HTTP without sessions: a fresh server per request (both eras); GET and DELETE get 405. */
  stateless?: boolean;
  authToken?: string;
  /**
   * OAuth 2.1 resource server (`--oauth-issuer`): the protected resource metadata is served at its well-known
   * paths, and every MCP request needs a valid access token for this resource (and, for `tools/call`, the
   * tool's scopes). Closed with the server.
   */
  auth?: AuthGuard;
  /**
   * Live sessions at most. When all are taken, a new session reclaims the slot of one whose client
   * left (dropped its GET stream without DELETE) or, failing that, of the one idle longest, if idle at
   * least `reclaimIdleMs`; a session with a request in flight or an open stream is never reclaimed.
   * Only when none can be reclaimed does a new session get 503.
   */
  maxSessions?: number;
  /**
   * Open 2026 `subscriptions/listen` streams at most, in the process (default 1024). When all are open, a new
   * one takes the slot of a stream whose client is gone or, failing that, of the oldest stream of the principal
   * holding the most (if it would still hold more than the newcomer); else it is refused in-band (JSON-RPC −32603).
   */
  maxListens?: number;
  /**
   * Open `subscriptions/listen` streams of one principal at most (default 16): the OAuth token's subject (or its
   * client), else the client's address. One more is refused in-band (JSON-RPC −32603) naming the limit.
   */
  maxListensPerPrincipal?: number;
  /** How long a session must be idle before a full table may reclaim it (ms); default 60 s, or `sessionIdleMs` if shorter. */
  reclaimIdleMs?: number;
  /** A session with no request for this long is closed (ms). */
  sessionIdleMs?: number;
  /**
   * A session that made no request after initialize (`notifications/initialized` does not count) and
   * holds no open stream is closed after this long (ms); default 60 s, or `sessionIdleMs` if shorter.
   */
  unusedSessionIdleMs?: number;
  /** The sessions' clock (ms): tests drive idle expiry with it instead of waiting; `Date.now` by default. */
  now?: () => number;
  /**
   * Time a client has to send a whole request, headers and body (ms); a slower one gets 408 and is
   * disconnected. Headers must arrive within 10 s, or this if shorter. Responses, such as SSE streams,
   * are not limited. Default 60 s.
   */
  requestTimeoutMs?: number;
  /** Request bodies above this get 413 (bytes). */
  maxBodyBytes?: number;
  /** Extra `Host` names (a reverse proxy's): `name` on any port, `name:port` on that port only. */
  allowedHosts?: readonly string[];
  /** Extra browser origins, e.g. `https://app.example.com`. */
  allowedOrigins?: readonly string[];
  /**
   * Resumable streams (SEP-1699), stateful Streamable HTTP only: each session gets its own bounded event
   * store, every SSE event an id, and a client whose stream ended early (a dropped connection, or a tool
   * that closed it on purpose) reconnects with `Last-Event-ID` and gets what it missed. Clients of
   * 2025-11-25 and later also get a priming event with `retry: 1000`. The bounds are per session; `false`
   * turns it off. Default 100 events and 1 MiB per session.
   */
  eventStore?: SessionEventStoreOptions | false;
  /**
   * `close()` drains first: from its call, `/readyz` answers 503 and new requests, sessions and streams get 503 with
   * `Retry-After`; the calls in flight get this long to finish (ms; default 30 s, `--shutdown-grace`); then the
   * streams are ended, the listener closed. A call still running then is cut.
   */
  shutdownGraceMs?: number;
  logger?: Logger;
}

export interface RunningHttpServer extends RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** The MCP endpoint: `<url>/mcp` or `<url>/sse`. */
  endpoint: string;
  /** Live 2025-era sessions now (both transports); 2026-07-28 requests hold none. */
  sessionCount(): number;
  /** Open 2026-07-28 `subscriptions/listen` streams now. */
  listenCount(): number;
  httpServer: Server;
}
