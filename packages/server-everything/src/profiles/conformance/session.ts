import { type Logger, type RequestContext, silentLogger } from '@mcpkit/protocol-core';
import type { TasksExtension } from '@mcpkit/protocol-core/tasks';
import { LoggingLevelSchema } from '@modelcontextprotocol/core';
import type { LoggingLevel, McpServer, ServerNotifier } from '@modelcontextprotocol/server';
import type { EverythingOptions } from '../../context.js';
import type { ClientInputChannel } from '../../shared/clientInput.js';
import { realTimers, type Scheduler, sleep } from '../../shared/scheduler.js';

/** The `logger` field of this profile's `notifications/message`. */
const LOGGER_NAME = 'everything-conformance';

/** Timings, with this profile's defaults (the suite's fixture's values). */
interface ConformanceConfig {
  /** Between two steps of `test_tool_with_logging` and `test_tool_with_progress` (the suite's "~50ms"). */
  stepMs: number;
  /** Between two `notifications/resources/updated` for a subscribed `test://watched-resource`. */
  watchedUpdateMs: number;
  /** How long `test_reconnection` keeps working after it closed its response stream. */
  reconnectionWorkMs: number;
  /** The timers of the steps, the watched resource and the tasks fixtures (`EverythingOptions.scheduler`). */
  scheduler: Scheduler;
}

function resolveConfig({ intervals = {}, scheduler = realTimers }: EverythingOptions): ConformanceConfig {
  return { stepMs: 50, watchedUpdateMs: intervals.resourceUpdatesMs ?? 3000, reconnectionWorkMs: 100, scheduler };
}

const SEVERITY = new Map(LoggingLevelSchema.options.map((level, index) => [level, index]));

/**
 * Everything one client session owns, in that session's `McpServer` (the suite's fixture keeps its
 * subscriptions in one module-level Set shared by every session). Nothing here outlives the server:
 * closing it aborts `closed`, which cancels every pending `sleep` and stops the watched-resource timer.
 */
export interface ConformanceSession {
  server: McpServer;
  /** Asks the client (elicitation, sampling, roots) in either era, and seals `requestState`. */
  input: ClientInputChannel;
  config: ConformanceConfig;
  logger: Logger;
  /** Aborted when the session's server closes. */
  closed: AbortSignal;
  /** The level this session's client asked for with `logging/setLevel`; undefined: everything is sent. */
  logLevel: LoggingLevel | undefined;
  /** How many times `test://watched-resource` changed in this session. */
  watchedRevision: number;
  /** The process's 2026-07-28 listen bus over HTTP (`EverythingOptions.listChanges`); undefined in-process. */
  listChanges: ServerNotifier | undefined;
  /** The tasks extension (the process's, `EverythingOptions.tasks`): `test_tool_with_task` starts its task there. */
  tasks: TasksExtension;
  /**
   * Sends `notifications/message` unless the client's level filters it out, on the stream of the request
   * being handled when `extra` is given (over HTTP, the POST's stream rather than the standalone GET one).
   * Resolves to whether it was sent; never throws.
   */
  log(level: LoggingLevel, data: unknown, extra?: RequestContext): Promise<boolean>;
  /** Resolves after `ms`, or rejects when `signal` aborts or the session closes. The timer never holds the process open. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export function createSession(
  server: McpServer,
  options: EverythingOptions,
  input: ClientInputChannel,
  tasks: TasksExtension,
): ConformanceSession {
  const lifetime = new AbortController();
  const session: ConformanceSession = {
    server,
    input,
    config: resolveConfig(options),
    logger: options.logger ?? silentLogger,
    closed: lifetime.signal,
    logLevel: undefined,
    watchedRevision: 0,
    listChanges: options.listChanges,
    tasks,
    async log(level, data, extra) {
      if (session.logLevel && SEVERITY.get(level)! < SEVERITY.get(session.logLevel)!) return false;
      const notification = { method: 'notifications/message' as const, params: { level, logger: LOGGER_NAME, data } };
      try {
        if (extra) await extra.mcpReq.notify(notification);
        else if (server.isConnected()) await server.server.notification(notification);
        else return false;
        return true;
      } catch (error) {
        session.logger.debug('could not send a log notification:', error);
        return false;
      }
    },
    sleep(ms, signal) {
      return sleep(session.config.scheduler, ms, signal ? AbortSignal.any([signal, lifetime.signal]) : lifetime.signal);
    },
  };

  // The SDK keeps the level for its own `sendLoggingMessage`, which can only send on the standalone
  // stream; this profile's log messages belong to the tool call that sends them, so it keeps the level
  // itself and filters in `log`.
  server.server.setRequestHandler('logging/setLevel', ({ params }) => {
    session.logLevel = params.level;
    return {};
  });

  const previousOnClose = server.server.onclose;
  server.server.onclose = () => {
    previousOnClose?.();
    lifetime.abort(new Error('the session closed'));
  };
  return session;
}
