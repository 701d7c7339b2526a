import { setMaxListeners } from 'node:events';
import { createMcpServer, registerPrompts, registerTools, STATIC_LIST_TTL_MS, silentLogger } from '@mcpkit/protocol-core';
import { createMemoryTaskStore, TasksExtension } from '@mcpkit/protocol-core/tasks';
import { createTaskLayer, type TaskLayer } from '@mcpkit/protocol-core/tasks-2025';
import type { McpRequestContext, McpServer } from '@modelcontextprotocol/server';
import type { EverythingOptions } from '../../context.js';
import type { TimerId } from '../../shared/scheduler.js';
import { createSimulatedLogging } from './logging.js';
import { serveModernTools } from './modernTools.js';
import { prompts } from './prompts.js';
import { instructions, registerDocumentResources } from './resources/documents.js';
import { createSessionResources } from './resources/session.js';
import { registerResourceTemplates } from './resources/templates.js';
import { createRootsCache } from './roots.js';
import { intervalsFor, resolveConfig } from './session.js';
import { registerStatelessGatedTools } from './statelessTools.js';
import { createSubscriberUpdates, enableCurrentSubscriptions } from './subscriptions.js';
import { gatedTools, tools } from './tools/index.js';
import type { TaskSession } from './tools/simulateResearchQuery.js';

/** The reference's identity: clients that key on it see the server they expect. */
const CURRENT_SERVER_INFO = { name: 'mcp-servers/everything', title: 'Everything Reference Server', version: '2.0.0' } as const;

/**
 * The `current` profile: a drop-in for npm `@modelcontextprotocol/server-everything@2026.8.31` (kebab-case
 * tools, toggles, URL elicitation, server- and client-side tasks, session resources). One server per client
 * session; all of its state lives here and its timers stop when the server closes.
 *
 * `context` is what the SDK says of the server it asks for: with `era: 'modern'` (2026-07-28, no `initialize`)
 * the capability-gated tools are registered at once and listed per request (`modernTools.ts`); otherwise they are
 * registered on `notifications/initialized`, as the reference does.
 */
export function createCurrentServer(options: EverythingOptions, context?: McpRequestContext): McpServer {
  const config = resolveConfig(options);
  const logger = options.logger ?? silentLogger;
  const server = createMcpServer(
    {
      ...CURRENT_SERVER_INFO,
      instructions: instructions(),
      // The tool list depends on what the client declared (gated tools): only that client may cache it.
      cacheHints: { 'tools/list': { ttlMs: STATIC_LIST_TTL_MS, cacheScope: 'private' } },
    },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
      },
      // The SDK verifies a retry's sealed `requestState` before the handler runs (a bad one is -32602).
      requestState: { verify: config.stateCodec.verify },
    },
  );
  const modern = context?.era === 'modern';
  // Server-side tasks for 2025-11-25 clients (`tasks` capability, `tasks/*`, task-augmented `tools/call`).
  // A task queues at most one request (the research clarification); 100 bounds a misbehaving one.
  const tasks = modern ? undefined : createTaskLayer(server, { logger, maxQueuedInputs: 100 });
  // 2026-07-28: the tasks extension instead (SEP-2663), the process's when the CLI made one (a task outlives its
  // request's server), else this server's own.
  const extension = modern ? (options.tasks ?? new TasksExtension(createMemoryTaskStore(), { logger })) : undefined;
  extension?.attach(server);

  const closing = new AbortController();
  // Every interval, sleep and download of the session listens to it: no listener limit (and no warning).
  setMaxListeners(0, closing.signal);
  const every = intervalsFor(closing.signal, config.scheduler);
  const subscriptions = enableCurrentSubscriptions(server, logger);
  const session: TaskSession = {
    server,
    config,
    logger,
    closed: closing.signal,
    clientCapabilities: () => server.server.getClientCapabilities() ?? {},
    simulatedLogging: createSimulatedLogging(server, every, config.loggingMs),
    subscriberUpdates: createSubscriberUpdates(subscriptions, every, config.resourceUpdatesMs),
    subscriptions,
    sessionResources: createSessionResources(server, config.sessionResourcesMaxBytes),
    roots: createRootsCache(server, logger),
    urlElicitationPrerequisites: new Set(),
    every,
    ...(tasks ? { tasks } : {}),
    ...(extension ? { extension } : {}),
  };

  const base = registerTools(server, session, tools, { logger }).map((registered, i) => ({ name: tools[i]!.name, registered }));
  registerResourceTemplates(server);
  registerDocumentResources(server);
  registerPrompts(server, session, prompts, { logger });
  if (modern) {
    serveModernTools(session, base);
    return closeWith(server, closing, tasks);
  }
  // --stateless: a 2025 request without a session (the runner's per-request server) never gets `initialized`.
  if (context?.era === 'legacy' && context.requestInfo !== undefined) {
    registerStatelessGatedTools(server, gatedTools, logger);
    return closeWith(server, closing, tasks);
  }

  let rootsTimer: TimerId | undefined;
  let initialized = false;
  server.server.oninitialized = () => {
    // A client that repeats `notifications/initialized` does not get the tools registered twice.
    if (initialized) return;
    initialized = true;
    // The transport is connected now: task-augmented tool calls reach the task layer from here on.
    tasks?.attach();
    // Now that the client's capabilities are known (each registration sends tools/list_changed).
    const client = session.clientCapabilities();
    for (const gated of gatedTools) {
      if (!gated.when(client)) continue;
      if ('tool' in gated) registerTools(server, session, [gated.tool], { logger });
      else gated.register(session);
    }
    // The first roots/list waits until the client is ready for server requests (over HTTP, its GET stream).
    if (!closing.signal.aborted) {
      rootsTimer = config.scheduler.setTimeout(() => void session.roots.sync(), config.rootsSyncDelayMs);
    }
  };

  return closeWith(server, closing, tasks, () => config.scheduler.clearTimeout(rootsTimer));
}

/** When the server closes: stops the toggles' intervals, pending sleeps and the research tasks of this session. */
function closeWith(server: McpServer, closing: AbortController, tasks: TaskLayer | undefined, also?: () => void): McpServer {
  const previousOnClose = server.server.onclose;
  server.server.onclose = () => {
    previousOnClose?.();
    also?.();
    closing.abort(new Error('The session closed.'));
    tasks?.close();
  };
  return server;
}
