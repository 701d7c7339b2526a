import { createMcpServer, type Logger, registerTools, silentLogger } from '@mcpkit/protocol-core';
import { serverSkills } from '@mcpkit/protocol-core/skills';
import type { TasksExtension } from '@mcpkit/protocol-core/tasks';
import type { McpRequestContext, McpServer } from '@modelcontextprotocol/server';
import type { ObjectLimits } from './engine/git/objectLimits.js';
import type { WorkFileHooks } from './engine/git/workFile.js';
import type { RemoteAccess } from './engine/remote/access.js';
import type { RemoteConfig, RemoteLimits } from './engine/remote/http.js';
import type { RepoCache } from './engine/repoCache.js';
import { clientRoots, fixedRoots } from './engine/roots.js';
import { createGitContext } from './gitContext.js';
import { withReferenceListing } from './listSchemas.js';
import { withRootsRound } from './rootsRound.js';
import { extraTools, initTools, referenceTools, remoteTools } from './tools/index.js';
import { VERSION } from './version.js';

export interface GitServerOptions {
  /**
   * Real, absolute paths the tools may work in (repositories or folders of repositories). Empty or
   * absent: the client's MCP roots, and with none of those every call is refused.
   */
  repositories?: readonly string[];
  /** Offer `git_init` (inside an allowed root only). Default false. */
  allowInit?: boolean;
  /** Offer `git_fetch`, `git_pull`, `git_push` through this network access. Default: not offered. */
  remote?: RemoteAccess;
  /**
   * Share the repositories' caches, the lstat pool and the memory budget (`createRepoCache(…, createCacheBudget({ maxBytes }))`)
   * between sessions; the CLI passes one per process. Default: one per server, with the default budget (128 MiB).
   */
  repoCache?: RepoCache;
  /** Environment for commit identity and credentials. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Home folder for the user's git config. Default `os.homedir()`. */
  home?: string;
  /** Where unexpected tool failures are logged (stderr in the CLI); silent by default. */
  logger?: Logger;
  /** What reading a repository's objects may cost (--max-object-size, …). Default: DEFAULT_OBJECT_LIMITS. */
  objectLimits?: Partial<ObjectLimits>;
  /** A test seam: told of each work-tree path right before it is opened, after its checks (workFile.ts). Default: none. */
  workTreeHooks?: WorkFileHooks;
  /**
   * The process's tasks extension (one per process: a task outlives the request that started it): `git_blame` and
   * the network tools then run as tasks for a 2026-07-28 request that declares `io.modelcontextprotocol/tasks`
   * (with `repositories` only: see ./rootsRound.ts). Without it, no tasks.
   */
  tasks?: TasksExtension;
}

/** The skills this package ships (`skills/`, next to `dist/` and `src/`), served to 2026-07-28 clients. */
const SKILLS = serverSkills(new URL('../skills/', import.meta.url), { prefix: 'git' });

/**
 * A git server for one client session. No side effects at import: the runner calls this once per
 * session (HTTP) or once per process (stdio); tests call it directly. `context` is what the SDK's serving
 * entries pass their factory: a 2026-07-28 one also gets the package's skills.
 */
export function createGitServer(options: GitServerOptions = {}, context?: McpRequestContext): McpServer {
  const { repositories = [], allowInit = false, remote, logger = silentLogger } = options;
  // The reference's name, so clients that key on it see the same server. 2026-07-28 cache hints: protocol-core's
  // default (`server/discover` and `tools/list` cacheable by anyone) is right here, as the tool list is fixed at
  // start-up (by --allow-init / --allow-remote) and is the same for every client; no resources or prompts but the skills.
  const server = SKILLS.attach(createMcpServer({ name: 'mcp-git', version: VERSION, title: 'Git' }), context);
  const ctx = createGitContext(options, repositories.length > 0 ? fixedRoots(repositories) : clientRoots(server, logger));
  const tools = [...referenceTools, ...extraTools, ...(allowInit ? initTools : []), ...(remote ? remoteTools : [])];
  const served = repositories.length > 0 ? tools : tools.map((tool) => withRootsRound(tool, logger));
  const listed = withReferenceListing(served);
  options.tasks?.attach(server);
  registerTools(server, ctx, listed, { logger, ...(options.tasks ? { tasks: options.tasks } : {}) });
  return server;
}

export { type CacheBudget, type CacheBudgetOptions, createCacheBudget, DEFAULT_CACHE_BYTES } from './engine/cacheBudget.js';
export type { GitContext } from './engine/context.js';
export { DEFAULT_OBJECT_LIMITS, type ObjectLimits } from './engine/git/objectLimits.js';
export type { RemoteAccess } from './engine/remote/access.js';
export type { RemoteConfig, RemoteLimits } from './engine/remote/http.js';

/**
 * Network access for `createGitServer({ remote })`: every request through the SSRF-safe policy of
 * @mcpkit/net (https; loopback/private only when allowed), credentials from `env` (GIT_TOKEN, or
 * GIT_USERNAME + GIT_PASSWORD; GIT_CREDENTIAL_HOSTS to limit where they go). Loaded on demand, so a
 * server without network tools never loads the HTTP client. Call `close()` on it when done.
 */
export async function createRemoteAccess(
  config: RemoteConfig,
  env: NodeJS.ProcessEnv = process.env,
  logger: Logger = silentLogger,
  limits?: RemoteLimits,
): Promise<RemoteAccess> {
  return (await import('./engine/remote/http.js')).createRemoteAccess(config, env, logger, limits);
}
export { createRepoCache, type RepoCache } from './engine/repoCache.js';
export { VERSION };
