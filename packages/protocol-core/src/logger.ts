import type { LoggingLevel, McpServer } from '@modelcontextprotocol/server';

/** Levels of the stderr logger, from the most to the least verbose. `silent` logs nothing. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Other names for the levels, as other tools spell them (`LOG_LEVEL` is often set for them too); any case. */
export const LOG_LEVEL_ALIASES: Readonly<Record<string, LogLevel>> = {
  trace: 'debug',
  verbose: 'debug',
  all: 'debug',
  warning: 'warn',
  err: 'error',
  fatal: 'error',
  critical: 'error',
  off: 'silent',
  none: 'silent',
  quiet: 'silent',
};

export interface Logger {
  readonly level: LogLevel;
  debug(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
  /** A logger that prefixes every line with `[name]` too. */
  child(name: string): Logger;
}

export interface LoggerOptions {
  /** Printed in brackets at the start of each line. */
  name: string;
  level?: LogLevel;
  /** Where lines go; stderr by default. stdout is the protocol's and is never used. */
  write?: (line: string) => void;
}

function formatDetail(detail: unknown): string {
  if (detail instanceof Error) return detail.stack ?? detail.message;
  if (typeof detail === 'string') return detail;
  try {
    return JSON.stringify(detail);
  } catch {
    return String(detail);
  }
}

/** A leveled logger that writes one line per message to stderr. */
export function createLogger({ name, level = 'info', write }: LoggerOptions): Logger {
  const out = write ?? ((line: string) => process.stderr.write(line));
  const threshold = LOG_LEVELS.indexOf(level);
  const emit = (at: Exclude<LogLevel, 'silent'>, message: string, details: unknown[]) => {
    if (LOG_LEVELS.indexOf(at) < threshold) return;
    const tail = details.length ? ` ${details.map(formatDetail).join(' ')}` : '';
    out(`[${name}] ${at}: ${message}${tail}\n`);
  };
  return {
    level,
    debug: (m, ...d) => emit('debug', m, d),
    info: (m, ...d) => emit('info', m, d),
    warn: (m, ...d) => emit('warn', m, d),
    error: (m, ...d) => emit('error', m, d),
    child: (child) => createLogger({ name: `${name}:${child}`, level, write: out }),
  };
}

/** A logger that drops everything; handy as a default in tests and libraries. */
export const silentLogger: Logger = createLogger({ name: 'silent', level: 'silent' });

/**
 * Sends an MCP `notifications/message` to the client of `server`. The SDK drops it when it is below
 * the level the client asked for with `logging/setLevel`; before any `setLevel`, everything is sent.
 * A server must declare the `logging` capability (see `createMcpServer`). Never throws: a client that
 * went away does not fail the tool call that logged.
 */
export async function sendLog(
  server: McpServer,
  level: LoggingLevel,
  data: unknown,
  loggerName?: string,
  sessionId?: string,
): Promise<void> {
  if (!server.isConnected()) return;
  try {
    await server.server.sendLoggingMessage({ level, data, ...(loggerName ? { logger: loggerName } : {}) }, sessionId);
  } catch {
    // The transport closed under us; logging is best effort.
  }
}
