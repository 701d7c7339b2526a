import type { Logger } from '@mcpkit/protocol-core';
import { silentLogger } from '@mcpkit/protocol-core';
import type { ClientCapabilities, McpServer, Root } from '@modelcontextprotocol/server';
import type { EverythingOptions } from '../../context.js';
import type { ClientInputChannel } from '../../shared/clientInput.js';
import type { Download } from '../../shared/download.js';
import { realTimers, type Scheduler } from '../../shared/scheduler.js';

/** The legacy profile's configuration with every default applied (the reference's values). */
export interface LegacyConfig {
  /** Read at call time: `options.env`, else `process.env`. */
  env: () => NodeJS.ProcessEnv;
  showEnvSecrets: boolean;
  download: Download | undefined;
  /** Between two simulated log messages (reference: 15 000 ms). */
  loggingMs: number;
  /** Between two rounds of `notifications/resources/updated` (reference: 10 000 ms). */
  resourceUpdatesMs: number;
  logger: Logger;
  /** The timers of the simulations and of `longRunningOperation` (`EverythingOptions.scheduler`). */
  scheduler: Scheduler;
}

export function resolveConfig(options: EverythingOptions): LegacyConfig {
  const { intervals = {} } = options;
  return {
    env: () => options.env ?? process.env,
    showEnvSecrets: options.showEnvSecrets ?? false,
    download: options.download,
    loggingMs: intervals.loggingMs ?? 15_000,
    resourceUpdatesMs: intervals.resourceUpdatesMs ?? 10_000,
    logger: options.logger ?? silentLogger,
    scheduler: options.scheduler ?? realTimers,
  };
}

/** What the client told this session about its roots. */
export interface RootsState {
  /** The client declared `roots` in `initialize`. */
  supported: boolean;
  /** The last list it returned (empty until then). */
  current: Root[];
}

/**
 * Everything one client session owns, in that session's `McpServer`: nothing is shared between
 * sessions, and `closed` aborts (stopping timers and in-flight work) when the session's server closes.
 */
export interface LegacySession {
  server: McpServer;
  config: LegacyConfig;
  roots: RootsState;
  /** Aborted when the session's server closes. */
  closed: AbortSignal;
  /** What the client declared in `initialize` (`{}` before it). */
  /** Asks the client (sampling, elicitation, roots) in either era: see `shared/clientInput.ts`. */
  input: ClientInputChannel;
  clientCapabilities(): ClientCapabilities;
}
