import type { LoggingLevel, McpServer } from '@modelcontextprotocol/server';
import { currentRequest, type RequestScope } from './telemetry/requestScope.js';

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

/**
 * How a line looks: `text` (`[name] level: message [http <id> req <id>]`) for people, or `json`, one object per
 * line (`{"time","level","name","msg",…}`), for log shippers.
 */
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface Logger {
  readonly level: LogLevel;
  /** `text` unless `json` was asked for (a request scope is kept for json lines only: `telemetry/observe.ts`). */
  readonly format?: LogFormat;
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
  /** `text` by default. */
  format?: LogFormat;
  /** The time written in `json` lines; the system clock by default. */
  now?: () => Date;
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

/** The ids of the request a line belongs to, at the end of a text line: ` [http 7f3a… req 12]`. */
function textScope(scope: RequestScope | undefined): string {
  if (!scope) return '';
  const parts: string[] = [];
  if (scope.http !== undefined) parts.push(`http ${scope.http}`);
  if (scope.id !== undefined) parts.push(`req ${String(scope.id)}`);
  return parts.length ? ` [${parts.join(' ')}]` : '';
}

/** One `json` line: the fixed fields, then the request's, each only when known. */
function jsonLine(time: Date, level: string, name: string, msg: string, scope: RequestScope | undefined): string {
  const record: Record<string, unknown> = { time: time.toISOString(), level, name, msg };
  if (scope) {
    if (scope.id !== undefined) record.requestId = scope.id;
    if (scope.method !== undefined) record.method = scope.method;
    if (scope.http !== undefined) record.httpRequestId = scope.http;
    if (scope.session !== undefined) record.sessionId = scope.session;
    if (scope.traceId !== undefined) record.traceId = scope.traceId;
    if (scope.spanId !== undefined) record.spanId = scope.spanId;
  }
  return `${JSON.stringify(record)}\n`;
}

/**
 * A leveled logger that writes one line per message to stderr. A line written while a request is served (in a tool
 * handler, a store, the HTTP runner) carries that request's ids (`telemetry/requestScope.ts`).
 */
export function createLogger({ name, level = 'info', write, format = 'text', now = () => new Date() }: LoggerOptions): Logger {
  const out = write ?? ((line: string) => process.stderr.write(line));
  const threshold = LOG_LEVELS.indexOf(level);
  const emit = (at: Exclude<LogLevel, 'silent'>, message: string, details: unknown[]) => {
    if (LOG_LEVELS.indexOf(at) < threshold) return;
    const tail = details.length ? ` ${details.map(formatDetail).join(' ')}` : '';
    const scope = currentRequest();
    out(format === 'json' ? jsonLine(now(), at, name, message + tail, scope) : `[${name}] ${at}: ${message}${tail}${textScope(scope)}\n`);
  };
  return {
    level,
    format,
    debug: (m, ...d) => emit('debug', m, d),
    info: (m, ...d) => emit('info', m, d),
    warn: (m, ...d) => emit('warn', m, d),
    error: (m, ...d) => emit('error', m, d),
    child: (child) => createLogger({ name: `${name}:${child}`, level, write: out, format, now }),
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
