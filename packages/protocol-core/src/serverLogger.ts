/**
 * The logger `createMcpServer` was given, per server: the default of the registration wrappers
 * (`registerTools`, `registerPrompts`, `registerResources`, `setRawRequestHandler`), which log the answers
 * they refuse for their size there. A `WeakMap`, so a server that is dropped takes its entry with it.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { type Logger, silentLogger } from './logger.js';

const loggers = new WeakMap<McpServer, Logger>();

export function setServerLogger(server: McpServer, logger: Logger): void {
  loggers.set(server, logger);
}

/** `given`, else the server's logger, else the silent one. */
export function serverLogger(server: McpServer, given?: Logger): Logger {
  return given ?? loggers.get(server) ?? silentLogger;
}
