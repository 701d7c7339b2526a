/**
 * One server, connected: the transport for its config, the handshake of the protocol era the
 * config asks for (`initialize` for 2025-11-25, `server/discover` for 2026-07-28) with only the
 * capabilities the host can serve, and its tools (every page). A server that cannot be reached
 * gives a `SERVER_START_FAILED` with one line saying why, never a stack.
 */
import { existsSync } from 'node:fs';
import {
  Client,
  type Implementation,
  type OAuthClientProvider,
  type PriorDiscovery,
  type ProtocolEra,
  type RequestOptions,
  SdkError,
  SdkErrorCode,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { authFailureReason, oauthCause } from '../auth/failures.js';
import { insufficientScope, isLoginRequired, loginRequiredMessage } from '../auth/loginRequired.js';
import { errorMessage, McpError } from '../errors.js';
import { type ClientServices, clientCapabilities, installClientHandlers } from './clientHandlers.js';
import { errnoCode, errnoText, formatSeconds, httpStatus, shownUrl, stripSdkPrefix } from './messages.js';
import { DEFAULT_PROTOCOL_MODE, eraFailure, versionNegotiation } from './negotiation.js';
import type { StderrSummary } from './stderrSummary.js';
import { openRawChannel } from './tasks/channel.js';
import { systemClock, type TaskClock } from './tasks/clock.js';
import { serverOffersTasks, type TaskSupport, taskEnvelope } from './tasks/taskCall.js';
import { sseTransport, stdioTransport, streamableHttpTransport } from './transports.js';
import type { HttpServerConfig, ProtocolMode, ServerConfig, StdioServerConfig } from './types.js';

/** How long a server has to start, answer `initialize` and list its tools. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Stop following `nextCursor` after this many pages (a server looping on its cursor). */
const MAX_TOOL_PAGES = 1000;

export interface ConnectOptions extends Omit<ClientServices, 'server'> {
  /** Sent as `clientInfo.version` (`name` is `mcpkit-agent`). */
  clientVersion: string;
  /** Default 30 s. */
  connectTimeoutMs?: number;
  /** A transport to use instead of the config's (tests: in-memory); undefined: the config's. */
  transportFactory?: (config: ServerConfig) => Transport | undefined;
  /** The server went away after it was connected (child exited, transport closed); not called by `close()`. `reason` quotes its stderr. */
  onUnexpectedClose?: (reason: string | undefined) => void;
  /** The protocol mode of a server whose config has no `protocol`. Default `legacy`. */
  defaultProtocol?: ProtocolMode;
  /**
   * A cached era verdict for a server (a host that already knows it speaks 2026-07-28, or is
   * legacy): skips the `server/discover` probe. Undefined: negotiate as the config says.
   */
  priorDiscovery?: (config: ServerConfig) => PriorDiscovery | undefined;
  /** The OAuth provider of an HTTP server (tokens sent and refreshed by the SDK); undefined: none. */
  authProvider?: (config: HttpServerConfig) => OAuthClientProvider | undefined;
  /** What task polling waits on (tests: a driven clock). Default: the real one. */
  taskClock?: TaskClock;
}

/** A connected server. */
export interface ServerConnection {
  readonly client: Client;
  /** Its tools at connect time (every page). */
  readonly tools: Tool[];
  readonly serverInfo?: Implementation;
  /** The protocol era it speaks: `legacy` (2025-11-25 and before) or `modern` (2026-07-28). */
  readonly era?: ProtocolEra;
  /** The negotiated protocol version (`2025-11-25`, `2026-07-28`). */
  readonly protocolVersion?: string;
  /** Present when the server offers the tasks extension (2026-07-28): calls opt in and tasks are followed. */
  readonly tasks?: TaskSupport;
  /** How it was reached: `custom` is a `transportFactory` transport. */
  readonly transport: 'stdio' | 'streamable-http' | 'sse' | 'custom';
  /** The child's pid (stdio). */
  readonly pid?: number;
  /** What the child's stderr says (stdio): a thrown error's message, else its last line. */
  stderrSummary(): StderrSummary | undefined;
  /** Close the client; a child process is ended (stdin closed, then SIGTERM, then SIGKILL) and waited for. */
  close(): Promise<void>;
}

/**
 * Every tool of the server: the SDK follows `nextCursor` page after page (up to `MAX_TOOL_PAGES`)
 * and keeps the whole list for checking structured output and mirroring `x-mcp-header` params.
 * Fetched afresh (`cacheMode: 'refresh'`): a call after `tools/list_changed` must see the new list.
 */
export async function listAllTools(client: Client, options?: RequestOptions): Promise<Tool[]> {
  // Without the tools capability the SDK would say so on stdout; there is nothing to list.
  if (!client.getServerCapabilities()?.tools) return [];
  const result = await client.listTools(undefined, { ...options, cacheMode: 'refresh' });
  return result.tools;
}

/** A `Client` for the agent: its name and version, only the capabilities `services` can serve. */
function createClient(services: ClientServices, clientVersion: string, mode: ProtocolMode, remainingMs: number): Client {
  const client = new Client(
    { name: 'mcpkit-agent', version: clientVersion },
    {
      capabilities: clientCapabilities(services),
      versionNegotiation: versionNegotiation(mode, remainingMs),
      listMaxPages: MAX_TOOL_PAGES,
    },
  );
  installClientHandlers(client, services);
  return client;
}

class ConnectTimeout extends Error {}

/** One line, without the SDK's `MCP error <code>: ` prefixes. */
function plainMessage(error: unknown): string {
  return stripSdkPrefix(errorMessage(error));
}

function isConnectionClosed(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed;
}

/** Why a stdio server did not start, in one line. */
/** `last stderr line: …` or, when a thrown error was found in it, `stderr: …`. */
function stderrWords(summary: StderrSummary | undefined): string | undefined {
  if (!summary) return undefined;
  return `${summary.isLastLine ? 'last stderr line' : 'stderr'}: ${summary.text}`;
}

function stdioFailure(config: StdioServerConfig, error: unknown, summary: StderrSummary | undefined, timeoutMs: number): string {
  const start = `${config.name}: could not start "${config.command}"`;
  const stderr = summary?.text;
  const words = stderrWords(summary);
  const said = words ? ` (${words})` : '';
  if (error instanceof ConnectTimeout) return `${config.name}: no answer within ${formatSeconds(timeoutMs)}${said}`;
  if (isConnectionClosed(error)) return `${start}: exited during startup${stderr ? `: ${stderr}` : ' (nothing on stderr)'}`;
  if (errnoCode(error) === 'ENOENT' && config.cwd !== undefined && !existsSync(config.cwd)) {
    return `${start}: the working directory ${config.cwd} does not exist`;
  }
  return `${start}: ${errnoText(error) ?? plainMessage(error)}${said}`;
}

/** Why an HTTP attempt failed, in a few words (`HTTP 404`, `connection refused (ECONNREFUSED)`). */
function httpReason(error: unknown, timeoutMs: number): string {
  if (error instanceof ConnectTimeout) return `no answer within ${formatSeconds(timeoutMs)}`;
  const status = httpStatus(error);
  if (status !== undefined) {
    const hint = status === 401 || status === 403 ? ' (check the credentials in "headers")' : '';
    return `HTTP ${status}${hint}`;
  }
  return errnoText(error) ?? plainMessage(error);
}

/** `promise`, or a `ConnectTimeout` rejection after `ms`. */
async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConnectTimeout()), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once `pid` is gone (or after `ms`). */
async function waitForExit(pid: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Attempt {
  transport: Transport;
  kind: ServerConnection['transport'];
  pid?: () => number | undefined;
  stderrSummary: () => StderrSummary | undefined;
  /** Streamable HTTP: end the session on the server before closing. */
  terminate?: () => Promise<void>;
}

/**
 * Connect to one server: create the transport, `initialize`, list its tools.
 * @throws McpError `SERVER_START_FAILED` with a one-line reason starting with the server's name.
 */
export async function connectServer(config: ServerConfig, options: ConnectOptions): Promise<ServerConnection> {
  const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const mode = config.protocol ?? options.defaultProtocol ?? DEFAULT_PROTOCOL_MODE;
  const prior = options.priorDiscovery?.(config);
  const started = Date.now();
  const services: ClientServices = {
    server: config.name,
    host: options.host,
    sample: options.sample,
    roots: options.roots,
    onToolListChanged: options.onToolListChanged,
  };

  const attempt = async ({ transport, kind, pid, stderrSummary, terminate }: Attempt): Promise<ServerConnection> => {
    const remaining = Math.max(1, timeoutMs - (Date.now() - started));
    const client = createClient(services, options.clientVersion, mode, remaining);
    let tools: Tool[];
    try {
      tools = await withDeadline(
        (async () => {
          await client.connect(transport, { timeout: remaining, ...(prior ? { prior } : {}) });
          return listAllTools(client, { timeout: remaining });
        })(),
        remaining,
      );
    } catch (error) {
      // Closing ends a child however far it got (stdin closed, SIGTERM, SIGKILL); wait for it.
      const childPid = pid?.();
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
      if (childPid !== undefined) await waitForExit(childPid, 1000);
      const era = eraFailure(error, mode);
      if (era !== undefined) throw new McpError('SERVER_START_FAILED', `${config.name}: ${era}`, { cause: error });
      throw error;
    }
    let closing = false;
    client.onclose = () => {
      if (!closing) options.onUnexpectedClose?.(stderrWords(stderrSummary()));
    };
    const childPid = pid?.();
    const channel = serverOffersTasks(client) ? openRawChannel(client) : undefined;
    const tasks: TaskSupport | undefined = channel
      ? {
          channel,
          services,
          clock: options.taskClock ?? systemClock,
          envelope: () => taskEnvelope(client, services, options.clientVersion),
        }
      : undefined;
    return {
      client,
      ...(tasks ? { tasks } : {}),
      tools,
      serverInfo: client.getServerVersion(),
      era: client.getProtocolEra(),
      protocolVersion: client.getNegotiatedProtocolVersion(),
      transport: kind,
      pid: childPid,
      stderrSummary,
      async close() {
        closing = true;
        channel?.close();
        if (terminate) await withDeadline(terminate(), 1000).catch(() => {});
        await client.close().catch(() => {});
        if (childPid !== undefined) await waitForExit(childPid, 1000);
      },
    };
  };

  const custom = options.transportFactory?.(config);
  if (custom) {
    try {
      return await attempt({ transport: custom, kind: 'custom', stderrSummary: () => undefined });
    } catch (error) {
      if (error instanceof McpError) throw error;
      const reason = error instanceof ConnectTimeout ? `no answer within ${formatSeconds(timeoutMs)}` : plainMessage(error);
      throw new McpError('SERVER_START_FAILED', `${config.name}: ${reason}`, { cause: error });
    }
  }

  if (config.kind === 'stdio') {
    const { transport, stderrSummary } = stdioTransport(config, (line) => options.host?.onServerStderr?.(config.name, line));
    try {
      return await attempt({ transport, kind: 'stdio', pid: () => transport.pid ?? undefined, stderrSummary });
    } catch (error) {
      if (error instanceof McpError) throw error;
      // The child's last words may still be on their way through the pipe.
      await new Promise((resolve) => setImmediate(resolve));
      throw new McpError('SERVER_START_FAILED', stdioFailure(config, error, stderrSummary(), timeoutMs), { cause: error });
    }
  }

  return connectHttp(config, timeoutMs, attempt, options.authProvider?.(config));
}

/**
 * The one line for an HTTP server that failed over OAuth, or undefined for another failure:
 * `server "<name>" needs a login: run mcp-agent login <name>`, a scope it wants, a refused issuer.
 */
function oauthFailure(config: HttpServerConfig, error: unknown): string | undefined {
  if (isLoginRequired(error)) return loginRequiredMessage(config.name);
  const challenge = insufficientScope(error);
  if (challenge) {
    const scope = challenge.requiredScope ? ` (${JSON.stringify(challenge.requiredScope)})` : '';
    return `server "${config.name}" wants a wider scope${scope}: run mcp-agent login ${config.name}${challenge.requiredScope ? ` --scope ${JSON.stringify(challenge.requiredScope)}` : ''}`;
  }
  const oauth = oauthCause(error);
  return oauth === undefined ? undefined : `${config.name}: OAuth failed: ${authFailureReason(oauth)}`;
}

/** Streamable HTTP; with `auto`, legacy SSE when the server answers the POST with a 4xx (the spec's fallback). */
async function connectHttp(
  config: HttpServerConfig,
  timeoutMs: number,
  attempt: (attempt: Attempt) => Promise<ServerConnection>,
  authProvider: OAuthClientProvider | undefined,
): Promise<ServerConnection> {
  const where = shownUrl(config.url);
  const fail = (text: string, cause: unknown): never => {
    const oauth = authProvider ? oauthFailure(config, cause) : undefined;
    throw new McpError('SERVER_START_FAILED', oauth ?? `${config.name}: ${text}`, { cause });
  };
  const none = () => undefined;
  if (config.transport === 'sse') {
    try {
      return await attempt({ transport: sseTransport(config, authProvider), kind: 'sse', stderrSummary: none });
    } catch (error) {
      if (error instanceof McpError) throw error;
      return fail(`could not connect to ${where} (SSE): ${httpReason(error, timeoutMs)}`, error);
    }
  }
  const streamable = streamableHttpTransport(config, authProvider);
  // Best effort: DELETE the session so the server can let go of it at once.
  const terminate = async () => {
    if (streamable.sessionId !== undefined) await streamable.terminateSession();
  };
  try {
    return await attempt({ transport: streamable, kind: 'streamable-http', stderrSummary: none, terminate });
  } catch (error) {
    if (error instanceof McpError) throw error;
    const status = httpStatus(error);
    const fallback =
      config.transport === 'auto' && status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403;
    if (!fallback) return fail(`could not connect to ${where}: ${httpReason(error, timeoutMs)}`, error);
    try {
      return await attempt({ transport: sseTransport(config, authProvider), kind: 'sse', stderrSummary: none });
    } catch (sseError) {
      if (sseError instanceof McpError) throw sseError;
      return fail(
        `could not connect to ${where}: HTTP ${status} with Streamable HTTP, ${httpReason(sseError, timeoutMs)} with legacy SSE`,
        sseError,
      );
    }
  }
}
