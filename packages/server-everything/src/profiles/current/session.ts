import type { Logger, Subscriptions } from '@mcpkit/protocol-core';
import type { ClientCapabilities, McpServer, RequestStateCodec } from '@modelcontextprotocol/server';
import type { EverythingOptions } from '../../context.js';
import { type ClientInputChannel, createClientInput, createStateCodec } from '../../shared/clientInput.js';
import type { Download } from '../../shared/download.js';
import { realTimers, type Scheduler, sleep as sleepOn } from '../../shared/scheduler.js';
import type { SessionResources } from './resources/session.js';
import type { RootsCache } from './roots.js';

/** The configuration with every default applied (the reference's values). */
export interface CurrentConfig {
  env: () => NodeJS.ProcessEnv;
  showEnvSecrets: boolean;
  download: Download | undefined;
  gzipMaxFetchSize: number;
  gzipMaxFetchTimeMs: number;
  /** Lower-cased, trimmed, without empties (the reference's parsing of `GZIP_ALLOWED_DOMAINS`). */
  gzipAllowedDomains: readonly string[];
  sessionResourcesMaxBytes: number;
  loggingMs: number;
  resourceUpdatesMs: number;
  researchStageMs: number;
  taskPollMs: number;
  rootsSyncDelayMs: number;
  /** The timers of the simulations, sleeps and polls (`EverythingOptions.scheduler`). */
  scheduler: Scheduler;
  /**
   * Seals the `requestState` of 2026-07-28 `input_required` rounds (the key of `EverythingOptions.requestStateKey`,
   * else a random one for this server). A server may also pass its `verify` as `requestState.verify`.
   */
  stateCodec: RequestStateCodec<unknown>;
}

export function resolveConfig(options: EverythingOptions): CurrentConfig {
  const { intervals = {} } = options;
  return {
    env: () => options.env ?? process.env,
    showEnvSecrets: options.showEnvSecrets ?? false,
    download: options.download,
    gzipMaxFetchSize: options.gzipMaxFetchSize ?? 10 * 1024 * 1024,
    gzipMaxFetchTimeMs: options.gzipMaxFetchTimeMs ?? 30_000,
    gzipAllowedDomains: (options.gzipAllowedDomains ?? []).map((d) => d.trim().toLowerCase()).filter((d) => d.length > 0),
    sessionResourcesMaxBytes: options.sessionResourcesMaxBytes ?? 100 * 1024 * 1024,
    loggingMs: intervals.loggingMs ?? 5000,
    resourceUpdatesMs: intervals.resourceUpdatesMs ?? 5000,
    researchStageMs: intervals.researchStageMs ?? 1000,
    taskPollMs: intervals.taskPollMs ?? 1000,
    rootsSyncDelayMs: intervals.rootsSyncDelayMs ?? 350,
    scheduler: options.scheduler ?? realTimers,
    stateCodec: createStateCodec(options.requestStateKey, options.spentRequestStates),
  };
}

/** Asks this session's client (elicitation, sampling, roots) in either era: see `shared/clientInput.ts`. */
export function clientInputOf({ server, config }: Pick<CurrentSession, 'server' | 'config'>): ClientInputChannel {
  return createClientInput(server, config.stateCodec);
}

/** A simulation a tool switches on and off (simulated logging, subscriber updates). */
export interface Toggle {
  readonly active: boolean;
  start(): void;
  stop(): void;
}

/**
 * Everything one client session owns. It lives in that session's `McpServer` (the reference keeps it in
 * module-level maps keyed by session id, shared by every session of the process); nothing here is shared
 * between sessions, and `closed` stops every timer and background task when the session's server closes.
 */
export interface CurrentSession {
  server: McpServer;
  config: CurrentConfig;
  logger: Logger;
  /** Aborted when the session's server closes. */
  closed: AbortSignal;
  /** What the client declared in `initialize` (empty before it). */
  clientCapabilities(): ClientCapabilities;
  simulatedLogging: Toggle;
  subscriberUpdates: Toggle;
  subscriptions: Subscriptions;
  sessionResources: SessionResources;
  roots: RootsCache;
  /** `trigger-url-elicitation`: error-path prerequisites issued and not yet retried (its one-shot markers). */
  urlElicitationPrerequisites: Set<string>;
  /**
   * Runs `tick` now and then every `ms` (on `config.scheduler`) until the returned stop is called or the
   * session closes. On the real timers the interval is unref'd: it never keeps the process alive.
   */
  every(ms: number, tick: () => void): () => void;
}

/** Resolves after `ms` on the session's scheduler, or rejects with the signal's reason when it aborts first. */
export function sleep(scheduler: Scheduler, ms: number, signal?: AbortSignal): Promise<void> {
  // setTimeout fires at once for NaN and after 1 ms beyond 2^31-1 ms; clamp instead of overflowing.
  const delay = Number.isNaN(ms) ? 0 : Math.min(Math.max(ms, 0), 2 ** 31 - 1);
  return sleepOn(scheduler, delay, signal);
}

/** The interval helper behind `CurrentSession.every`. */
export function intervalsFor(closed: AbortSignal, scheduler: Scheduler): CurrentSession['every'] {
  return (ms, tick) => {
    if (closed.aborted) return () => {};
    tick();
    const handle = scheduler.setInterval(tick, ms);
    const stop = () => {
      scheduler.clearInterval(handle);
      closed.removeEventListener('abort', stop);
    };
    closed.addEventListener('abort', stop, { once: true });
    return stop;
  };
}
