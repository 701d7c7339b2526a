import { createMcpServer, enableSubscriptions, registerTools } from '@mcpkit/protocol-core';
import type { McpServer } from '@modelcontextprotocol/server';
import type { EverythingOptions } from '../../context.js';
import { createClientInput, createStateCodec } from '../../shared/clientInput.js';
import { setCompletionHandler } from './completions.js';
import { INSTRUCTIONS } from './instructions.js';
import { setPromptHandlers } from './prompts.js';
import { setResourceHandlers } from './resources.js';
import { fetchInitialRoots, onRootsListChanged } from './roots.js';
import { type LegacySession, resolveConfig } from './session.js';
import { startSimulations } from './simulations.js';
import { tools as legacyTools } from './tools/index.js';

/** The reference's `serverInfo`, version included: it is part of the contract clients see. */
const LEGACY_SERVER_INFO = { name: 'example-servers/everything', title: 'Everything Example Server', version: '1.0.0' };

/** The reference's capabilities (no `listChanged`: the lists never change). */
const LEGACY_CAPABILITIES = { prompts: {}, resources: { subscribe: true }, tools: {}, logging: {}, completions: {} };

/**
 * The `legacy` profile: npm `@modelcontextprotocol/server-everything@2025.11.25` (a low-level `Server`
 * with hand-written handlers), served by an `McpServer` whose requests are answered the way those
 * handlers did: the tools by `registerTools` with `wire: 'low-level'`, prompts, resources and completions
 * by raw handlers on `server.server`, so the wire shapes are the reference's (see the package README for
 * what differs).
 *
 * One instance per client session: subscriptions, roots, the log level (kept by the SDK per server) and
 * the two simulations (log messages every 15 s, resource updates every 10 s, started on
 * `notifications/initialized`) belong to it, and everything stops when its server closes.
 */
export function createLegacyServer(options: EverythingOptions): McpServer {
  const config = resolveConfig(options);
  const { tools, resources, prompts, ...rest } = LEGACY_CAPABILITIES;
  const codec = createStateCodec(options.requestStateKey, options.spentRequestStates);
  const server = createMcpServer(
    { ...LEGACY_SERVER_INFO, instructions: INSTRUCTIONS },
    { capabilities: rest, requestState: { verify: codec.verify } },
  );
  // Declared after construction: given to the constructor, they would get `listChanged: true` (SDK 1.32).
  server.server.registerCapabilities({ prompts, resources, tools });
  const closing = new AbortController();
  const session: LegacySession = {
    server,
    config,
    roots: { supported: false, current: [] },
    closed: closing.signal,
    input: createClientInput(server, codec),
    clientCapabilities: () => server.server.getClientCapabilities() ?? {},
  };

  const subscribed = new Set<string>();
  const subscriptions = enableSubscriptions(server, {
    onSubscribe: (uri) => void subscribed.add(uri),
    onUnsubscribe: (uri) => subscribed.delete(uri),
    logger: config.logger,
  });
  // As the reference's low-level handlers answer: its JSON Schemas, JSON-RPC errors with its texts.
  registerTools(server, session, legacyTools, { logger: config.logger, wire: 'low-level' });
  setResourceHandlers(server);
  setPromptHandlers(server);
  setCompletionHandler(server);

  // The transport forgets its session id before `onclose`, so it is read once the session is initialized.
  let sessionId: string | undefined;
  let initialized = false;
  onRootsListChanged(session, () => sessionId);
  server.server.oninitialized = () => {
    // A second `notifications/initialized` starts nothing more.
    if (initialized || closing.signal.aborted) return;
    initialized = true;
    sessionId = server.server.transport?.sessionId;
    startSimulations(session, sessionId, () => subscribed, subscriptions.notifyUpdated);
    void fetchInitialRoots(session, sessionId);
  };
  const previousOnClose = server.server.onclose;
  server.server.onclose = () => {
    previousOnClose?.();
    closing.abort();
  };
  return server;
}
