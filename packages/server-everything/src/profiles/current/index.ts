import { setMaxListeners } from 'node:events';
import { createMcpServer, registerPrompts, registerTools, silentLogger } from '@mcpkit/protocol-core';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { EverythingOptions } from '../../context.js';
import { createSimulatedLogging } from './logging.js';
import { prompts } from './prompts.js';
import { instructions, registerDocumentResources } from './resources/documents.js';
import { createSessionResources } from './resources/session.js';
import { registerResourceTemplates } from './resources/templates.js';
import { createRootsCache } from './roots.js';
import { type CurrentSession, intervalsFor, resolveConfig } from './session.js';
import { createSubscriberUpdates, enableCurrentSubscriptions } from './subscriptions.js';
import { gatedTools, tools } from './tools/index.js';

/** The reference's identity: clients that key on it see the server they expect. */
export const CURRENT_SERVER_INFO = { name: 'mcp-servers/everything', title: 'Everything Reference Server', version: '2.0.0' } as const;

/**
 * The `current` profile: a drop-in for npm `@modelcontextprotocol/server-everything@2026.8.31` (kebab-case
 * tools, toggles, URL elicitation, server- and client-side tasks, session resources). One server per client
 * session; all of its state lives here and its timers stop when the server closes.
 */
export function createCurrentServer(options: EverythingOptions): McpServer {
  const config = resolveConfig(options);
  const logger = options.logger ?? silentLogger;
  const taskStore = new InMemoryTaskStore();
  const server = createMcpServer(
    { ...CURRENT_SERVER_INFO, instructions: instructions() },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore,
      taskMessageQueue: new InMemoryTaskMessageQueue(),
      // A task queues at most one request (the research clarification); this bounds a misbehaving one.
      maxTaskQueueSize: 100,
    },
  );

  const closing = new AbortController();
  // Every interval, sleep and download of the session listens to it: no listener limit (and no warning).
  setMaxListeners(0, closing.signal);
  const every = intervalsFor(closing.signal);
  const subscriptions = enableCurrentSubscriptions(server, logger);
  const session: CurrentSession = {
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
  };

  registerTools(server, session, tools, { logger });
  registerResourceTemplates(server);
  registerDocumentResources(server);
  registerPrompts(server, session, prompts, { logger });

  let rootsTimer: NodeJS.Timeout | undefined;
  let initialized = false;
  server.server.oninitialized = () => {
    // A client that repeats `notifications/initialized` does not get the tools registered twice.
    if (initialized) return;
    initialized = true;
    // Now that the client's capabilities are known (each registration sends tools/list_changed).
    const client = session.clientCapabilities();
    for (const gated of gatedTools) {
      if (!gated.when(client)) continue;
      if ('tool' in gated) registerTools(server, session, [gated.tool], { logger });
      else gated.register(session);
    }
    // The first roots/list waits until the client is ready for server requests (over HTTP, its GET stream).
    if (!closing.signal.aborted) {
      rootsTimer = setTimeout(() => void session.roots.sync(), config.rootsSyncDelayMs);
      rootsTimer.unref();
    }
  };

  const previousOnClose = server.server.onclose;
  server.server.onclose = () => {
    previousOnClose?.();
    clearTimeout(rootsTimer);
    // Stops the toggles' intervals, pending sleeps and the research tasks of this session.
    closing.abort(new Error('The session closed.'));
    taskStore.cleanup();
  };
  return server;
}
