import { createMcpServer, type Logger, registerPrompts, registerTools, silentLogger } from '@mcpkit/protocol-core';
import { serverSkills } from '@mcpkit/protocol-core/skills';
import type { TasksExtension } from '@mcpkit/protocol-core/tasks';
import type { McpRequestContext, McpServer } from '@modelcontextprotocol/server';
import { createFetcher, type Fetcher, type FetcherOptions } from './fetcher.js';
import { prompts } from './prompts/fetch.js';
import { type FetchContext, tools } from './tools/index.js';
import { VERSION } from './version.js';

export interface FetchServerOptions extends FetcherOptions {
  /**
   * A fetcher shared by several servers (the CLI shares one between HTTP sessions). Without it the
   * server builds its own from the other options and closes it when the server closes.
   */
  fetcher?: Fetcher;
  logger?: Logger;
  /**
   * The process's tasks extension (one per process: a task outlives the request that started it): `fetch` then
   * runs as a task for a 2026-07-28 request that declares `io.modelcontextprotocol/tasks`. Without it, no tasks.
   */
  tasks?: TasksExtension;
}

/** The skills this package ships (`skills/`, next to `dist/` and `src/`), served to 2026-07-28 clients. */
const SKILLS = serverSkills(new URL('../skills/', import.meta.url), { prefix: 'fetch' });

/**
 * A fetch server: tool `fetch` (robots.txt, autonomous user agent, pagination) and prompt `fetch`
 * (user-specified agent, whole content), with the reference's names, schemas and texts. SSRF-safe by
 * default: pass `allowPrivateNetwork` or `allowHosts` to reach loopback or private addresses. `context` is what the
 * SDK's serving entries pass their factory: a 2026-07-28 one also gets the package's skills.
 */
export function createFetchServer(options: FetchServerOptions = {}, context?: McpRequestContext): McpServer {
  const logger = options.logger ?? silentLogger;
  const shared = options.fetcher ?? createFetcher({ ...options, logger });
  // This server is one serving unit (a 2025 session over HTTP, a stdio connection, or one 2026-07-28 request
  // over HTTP): its conversions get the unit's fair share of the shared workers, released when it closes.
  const fetcher = shared.openSession();
  // The reference's serverInfo name; the version is ours. protocol-core's default cache hints are this
  // server's: the tool and prompt lists (and `server/discover`) never change while the process runs.
  const server = SKILLS.attach(createMcpServer({ name: 'mcp-fetch', version: VERSION, title: 'Fetch', logger }), context);
  options.tasks?.attach(server);
  const ctx: FetchContext = { fetcher };
  registerTools(server, ctx, tools, { logger, ...(options.tasks ? { tasks: options.tasks } : {}) });
  registerPrompts(server, ctx, prompts, { logger });
  const previous = server.server.onclose;
  server.server.onclose = () => {
    previous?.();
    void fetcher.close();
    if (!options.fetcher) void shared.close();
  };
  return server;
}

export { type AllowedHost, parseAllowHost, type ResolvedAddress, type Resolver } from '@mcpkit/net';
export {
  DEFAULT_USER_AGENT_AUTONOMOUS,
  DEFAULT_USER_AGENT_MANUAL,
} from './constants.js';
export { createHtmlConverter, type HtmlConversion, type HtmlConverter } from './content/html.js';
export { type ContentCacheOptions, createFetcher, type FetchedPage, type Fetcher, type FetcherOptions } from './fetcher.js';
export { robotsTxtUrl } from './robots.js';
export { VERSION };
