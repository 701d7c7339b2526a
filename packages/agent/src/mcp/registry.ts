/**
 * Many MCP servers behind one `ToolRouter`: every configured server connected in parallel, their
 * tools under namespaced names (`server__tool`), calls routed to the right client. A server that
 * fails to start is reported and left out; the others go on.
 */
import { resolve } from 'node:path';
import type { CallToolResult, Client, Implementation, PriorDiscovery, Tool, Transport } from '@modelcontextprotocol/client';
import { stepUp } from '../auth/login.js';
import { insufficientScope, isLoginRequired, loginRequiredMessage } from '../auth/loginRequired.js';
import { createOAuthProvider, type OpenUrl, providerOptionsFor } from '../auth/provider.js';
import { type ServerAuthState, storedAuthState, usesOAuth } from '../auth/status.js';
import type { TokenStore } from '../auth/store.js';
import { errorMessage, isMcpError, McpError } from '../errors.js';
import type { AgentHost } from '../host.js';
import type { SampleHandler } from '../sampling.js';
import { createSkillCatalog } from '../skills/catalog.js';
import { listServerSkills, type ServerSkills } from '../skills/serverSkills.js';
import type { JsonSchema } from '../types.js';
import { VERSION } from '../version.js';
import { connectServer, listAllTools, type ServerConnection } from './connection.js';
import { stripSdkPrefix } from './messages.js';
import { createToolNameTable } from './names.js';
import type { TaskClock } from './tasks/clock.js';
import { callServerTool } from './toolCall.js';
import type { CallOptions, HttpServerConfig, ProtocolMode, ServerConfig, ToolEntry, ToolRouter } from './types.js';

/** OAuth for the HTTP servers of a registry (see `RegistryOptions.oauth`). */
export interface RegistryOAuthOptions {
  /** Where logins are kept (`createTokenStore(dir)`). */
  store: TokenStore;
  /**
   * Present: a tool call refused with 403 `insufficient_scope` asks the user (once per scope and
   * server) for the wider scope through this, and is retried once. Absent: it fails saying what to run.
   */
  openUrl?: OpenUrl;
  /** Lines for the user during such a step-up (the URL). Default: stderr. */
  log?: (line: string) => void;
  /** How long a step-up waits for the browser (ms). Default 5 min. */
  timeoutMs?: number;
}

export interface RegistryOptions {
  /** Where elicitation, logs, progress, notices and stderr lines go. */
  host?: AgentHost;
  /** `clientInfo.version` in `initialize`. Default: this package's version. */
  clientVersion?: string;
  /**
   * Directories offered to servers as roots (relative ones are resolved against the current
   * directory). Absent: the roots capability is not declared, and `setRoots` cannot notify servers;
   * pass `[]` to declare it with no roots yet.
   */
  roots?: string[];
  /** Answers servers' `sampling/createMessage`. Absent: sampling is not offered. */
  sample?: SampleHandler;
  /** How long one server has to start and list its tools (ms). Default 30 s. */
  connectTimeoutMs?: number;
  /** A transport for a config instead of its own (tests: in-memory pairs); undefined: the config's. */
  transportFactory?: (config: ServerConfig) => Transport | undefined;
  /** The protocol mode of a server whose config has no `protocol`. Default `legacy` (see README). */
  defaultProtocol?: ProtocolMode;
  /** A cached era verdict per server, skipping the `server/discover` probe (hosts that know the server). */
  priorDiscovery?: (config: ServerConfig) => PriorDiscovery | undefined;
  /**
   * OAuth for HTTP entries without a static credential header: tokens from `store` sent and
   * refreshed; a server that needs a login without a usable token fails with
   * `server "<name>" needs a login: run mcp-agent login <name>`. Absent: no OAuth (as before).
   */
  oauth?: RegistryOAuthOptions;
  /** What task polling waits on (tests: a driven clock). Default: the real one. */
  taskClock?: TaskClock;
}

/** One configured server, as the registry sees it now. */
export interface ServerStatus {
  name: string;
  /** `failed`: it did not start, or it stopped since (see `error`). */
  status: 'connected' | 'failed';
  /** One line: why it failed or stopped. */
  error?: string;
  tools: number;
  serverInfo?: Implementation;
  /** The protocol version spoken with it (`2025-11-25`, `2026-07-28`), once connected. */
  protocolVersion?: string;
}

/** A server's status with how it is reached and how it authenticates (`mcp-agent servers`). */
export interface ServerReport extends ServerStatus {
  /** How it is reached: `stdio`, `streamable-http`, `sse`, or `http` (an HTTP server that did not connect). */
  transport: 'stdio' | 'streamable-http' | 'sse' | 'http' | 'custom';
  /** `none`, `token` (a static credential header), `oauth` (a stored login), `needs login`. */
  auth: ServerAuthState;
}

export interface McpRegistry extends ToolRouter, AsyncDisposable {
  /** Every configured server, in config order. */
  readonly servers: ReadonlyArray<ServerStatus>;
  /** `servers` with each one's transport and auth state. Never carries a credential. */
  serverReports(): ServerReport[];
  /** Replace the roots and send `notifications/roots/list_changed` to every connected server. */
  setRoots(roots: string[]): Promise<void>;
  /** The SDK client of a connected server, for what the registry does not route (resources, prompts). */
  client(server: string): Client | undefined;
  /** Close every client; stdio children are ended and waited for. Safe to call twice. */
  close(): Promise<void>;
}

interface ServerState {
  config: ServerConfig;
  connection?: ServerConnection;
  status: ServerStatus['status'];
  error?: string;
  tools: Tool[];
  /** Bumped per refresh, so an older listing never overwrites a newer one. */
  generation: number;
  /** `tools/list_changed` arrived while connecting: list again once connected. */
  changedWhileConnecting: boolean;
  auth: ServerAuthState;
  /** Scopes the user was already asked for in a step-up (never asked twice). */
  steppedUp: Set<string>;
  /** Its skills (SEP-2640), listed at connect; absent when it offers none. */
  skills?: ServerSkills;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function toEntry(name: string, config: ServerConfig, tool: Tool): ToolEntry {
  const server = config.name;
  const entry: ToolEntry = {
    name,
    server,
    tool: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema as JsonSchema,
  };
  const title = tool.title ?? tool.annotations?.title;
  if (title !== undefined) entry.title = title;
  if (tool.annotations !== undefined) entry.annotations = tool.annotations;
  if (config.defer === false) entry.defer = false;
  return entry;
}

/**
 * Connect every server of `configs` in parallel and route tool calls to them. Never rejects because
 * of a server: one that fails is reported to `host.onNotice` (one line) and in `servers`.
 */
export async function createRegistry(configs: readonly ServerConfig[], options: RegistryOptions = {}): Promise<McpRegistry> {
  const { host } = options;
  const rootsDeclared = options.roots !== undefined;
  let roots = (options.roots ?? []).map((root) => resolve(root));
  let closing: Promise<void> | undefined;
  const states: ServerState[] = configs.map((config) => ({
    config,
    status: 'failed',
    tools: [],
    generation: 0,
    changedWhileConnecting: false,
    auth: 'none',
    steppedUp: new Set<string>(),
  }));
  const oauth = options.oauth;
  const authProvider = oauth
    ? (config: HttpServerConfig) => (usesOAuth(config) ? createOAuthProvider(providerOptionsFor(config, oauth.store)) : undefined)
    : undefined;
  let entries: readonly ToolEntry[] = [];
  let routes = new Map<string, { entry: ToolEntry; state: ServerState }>();
  const skills = createSkillCatalog();

  /** Names for every tool, from scratch: config order, then each server's order. */
  const rebuild = () => {
    const table = createToolNameTable();
    const nextEntries: ToolEntry[] = [];
    const nextRoutes = new Map<string, { entry: ToolEntry; state: ServerState }>();
    for (const state of states) {
      if (!state.connection) continue;
      for (const tool of state.tools) {
        const entry = toEntry(table.assign(state.config.name, tool.name), state.config, tool);
        nextEntries.push(entry);
        nextRoutes.set(entry.name, { entry, state });
      }
    }
    entries = nextEntries;
    routes = nextRoutes;
    skills.rebuild(
      states.flatMap((state) => (state.connection && state.skills ? [{ server: state.config.name, skills: state.skills }] : [])),
    );
  };

  const refresh = async (state: ServerState) => {
    const connection = state.connection;
    if (!connection) {
      state.changedWhileConnecting = true;
      return;
    }
    const generation = ++state.generation;
    const name = state.config.name;
    try {
      const tools = await listAllTools(connection.client, { timeout: options.connectTimeoutMs });
      if (generation !== state.generation || closing) return;
      state.tools = tools;
      rebuild();
      host?.onNotice?.(`${name}: tools changed (${plural(tools.length, 'tool')})`);
    } catch (error) {
      if (!closing && state.status === 'connected') {
        host?.onNotice?.(`${name}: tools changed, but listing them failed: ${stripSdkPrefix(errorMessage(error))}`);
      }
    }
  };

  /** The server's skills listing (names, descriptions, digests): never a skill file. A failure is a notice. */
  const listSkills = async (state: ServerState, connection: ServerConnection) => {
    try {
      const listed = await listServerSkills(connection.client, { timeout: options.connectTimeoutMs });
      if (!listed) return;
      state.skills = listed;
      for (const line of listed.invalid.slice(0, 5)) host?.onNotice?.(`${state.config.name}: skill refused: ${line}`);
    } catch (error) {
      host?.onNotice?.(`${state.config.name}: listing its skills failed: ${stripSdkPrefix(errorMessage(error))}`);
    }
  };

  const connect = async (state: ServerState) => {
    const { config } = state;
    try {
      const connection = await connectServer(config, {
        host,
        clientVersion: options.clientVersion ?? VERSION,
        sample: options.sample,
        roots: rootsDeclared ? () => roots : undefined,
        connectTimeoutMs: options.connectTimeoutMs,
        transportFactory: options.transportFactory,
        defaultProtocol: options.defaultProtocol,
        priorDiscovery: options.priorDiscovery,
        authProvider,
        taskClock: options.taskClock,
        onToolListChanged: () => void refresh(state),
        onUnexpectedClose: (stderr) => {
          if (closing || state.status !== 'connected') return;
          state.status = 'failed';
          state.error = `${config.name} stopped${stderr ? ` (${stderr})` : ''}`;
          host?.onNotice?.(state.error);
        },
      });
      state.connection = connection;
      state.tools = connection.tools;
      state.status = 'connected';
      state.auth = await storedAuthState(config, oauth?.store);
      await listSkills(state, connection);
      if (state.changedWhileConnecting) void refresh(state);
    } catch (error) {
      state.auth = oauth && isLoginRequired(error) ? 'needs login' : await storedAuthState(config, oauth?.store);
      const message = errorMessage(error);
      state.error = isMcpError(error) || message.startsWith(`${config.name}:`) ? message : `${config.name}: ${message}`;
      host?.onNotice?.(state.error);
    }
  };

  /**
   * After an OAuth refusal during a call: a missing login is said as the command to run; a wider
   * scope is asked for once (through `oauth.openUrl`), after which the caller retries once.
   * Rethrows whatever is not an OAuth refusal.
   */
  const authorizeAgain = async (state: ServerState, config: HttpServerConfig, error: unknown, mayAsk: boolean): Promise<void> => {
    const name = config.name;
    if (isLoginRequired(error)) {
      state.auth = 'needs login';
      throw new McpError('TOOL_EXECUTION_FAILED', loginRequiredMessage(name), { cause: error });
    }
    const challenge = insufficientScope(error);
    if (!challenge || !oauth) throw error;
    const wanted = challenge.requiredScope ?? '';
    const shown = wanted ? ` ${JSON.stringify(wanted)}` : '';
    if (!oauth.openUrl || !mayAsk || state.steppedUp.has(wanted)) {
      const asked = state.steppedUp.has(wanted) ? ' (asked once already)' : '';
      throw new McpError(
        'TOOL_EXECUTION_FAILED',
        `server "${name}" refuses this call without the scope${shown}${asked}: run mcp-agent login ${name}${wanted ? ` --scope ${JSON.stringify(wanted)}` : ''}`,
        { cause: error },
      );
    }
    state.steppedUp.add(wanted);
    host?.onNotice?.(`${name}: the server asks for the scope${shown}; authorize it in the browser`);
    try {
      await stepUp(config, challenge, {
        store: oauth.store,
        openUrl: oauth.openUrl,
        ...(oauth.log ? { log: oauth.log } : {}),
        ...(oauth.timeoutMs !== undefined ? { timeoutMs: oauth.timeoutMs } : {}),
      });
    } catch (stepUpError) {
      throw new McpError('TOOL_EXECUTION_FAILED', errorMessage(stepUpError), { cause: stepUpError });
    }
  };

  await Promise.all(states.map(connect));
  rebuild();

  const close = (): Promise<void> => {
    closing ??= Promise.allSettled(states.map((state) => state.connection?.close())).then(() => undefined);
    return closing;
  };

  const statusOf = (state: ServerState): ServerStatus => {
    const status: ServerStatus = { name: state.config.name, status: state.status, tools: state.tools.length };
    if (state.error !== undefined) status.error = state.error;
    const serverInfo = state.connection?.serverInfo;
    if (serverInfo !== undefined) status.serverInfo = serverInfo;
    const protocolVersion = state.connection?.protocolVersion;
    if (protocolVersion !== undefined) status.protocolVersion = protocolVersion;
    return status;
  };

  return {
    get servers() {
      return states.map(statusOf);
    },
    serverReports() {
      return states.map(
        (state): ServerReport => ({
          ...statusOf(state),
          transport: state.connection?.transport ?? (state.config.kind === 'stdio' ? 'stdio' : 'http'),
          auth: state.auth,
        }),
      );
    },
    listTools: () => entries,
    listSkills: () => skills.list(),
    loadSkill: (name, file, loadOptions = {}) => skills.load(name, file, { signal: loadOptions.signal, timeout: options.connectTimeoutMs }),
    client(server) {
      const state = states.find((candidate) => candidate.config.name === server);
      return state?.status === 'connected' ? state.connection?.client : undefined;
    },
    lookup: (name) => routes.get(name)?.entry,
    async callTool(name: string, args: Record<string, unknown>, callOptions: CallOptions = {}): Promise<CallToolResult> {
      const route = routes.get(name);
      if (!route) {
        const shown = name.length > 100 ? `${name.slice(0, 100)}...` : name;
        throw new McpError('TOOL_NOT_FOUND', `unknown tool ${JSON.stringify(shown)}`);
      }
      const { entry, state } = route;
      if (closing || state.status !== 'connected' || !state.connection) {
        throw new McpError('TOOL_EXECUTION_FAILED', `${entry.server} is not running`);
      }
      const call = () =>
        callServerTool(state.connection!.client, entry, args, {
          ...callOptions,
          serverTimeoutMs: state.config.timeoutMs,
          host,
          tasks: state.connection!.tasks,
        });
      try {
        return await call();
      } catch (error) {
        if (!oauth || state.config.kind !== 'http' || !usesOAuth(state.config)) throw error;
        await authorizeAgain(state, state.config, error, true);
        try {
          return await call();
        } catch (again) {
          await authorizeAgain(state, state.config, again, false);
          throw again;
        }
      }
    },
    async setRoots(next) {
      roots = next.map((root) => resolve(root));
      if (!rootsDeclared) return;
      await Promise.all(
        states.map(async (state) => {
          // A 2026-07-28 server asks for roots afresh on each call (MRTR); only 2025 servers are told.
          if (state.status === 'connected' && state.connection?.era !== 'modern') {
            await state.connection?.client.sendRootsListChanged().catch(() => {});
          }
        }),
      );
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
