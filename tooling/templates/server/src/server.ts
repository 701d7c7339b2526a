import { createMcpServer, type Logger, registerTools, silentLogger } from '@mcpkit/protocol-core';
import type { McpServer } from '@modelcontextprotocol/server';
import type { $PASCAL$Context } from './context.js';
import { tools } from './tools/index.js';
import { VERSION } from './version.js';

export interface $PASCAL$ServerOptions {
  /** Longest message `echo` accepts. Default 10 000. */
  maxMessageLength?: number;
  /** Where unexpected tool failures are logged (stderr in the CLI); silent by default. */
  logger?: Logger;
}

/**
 * A $TITLE$ server for one client session. No side effects at import: the runner calls this once per
 * session (HTTP) or once per process (stdio); tests call it directly.
 */
export function create$PASCAL$Server(options: $PASCAL$ServerOptions = {}): McpServer {
  const { maxMessageLength = 10_000, logger = silentLogger } = options;
  const server = createMcpServer({ name: '$NAME$-server', version: VERSION, title: '$TITLE$' });
  const ctx: $PASCAL$Context = { maxMessageLength };
  registerTools(server, ctx, tools, { logger });
  return server;
}

export type { $PASCAL$Context } from './context.js';
export { VERSION };
