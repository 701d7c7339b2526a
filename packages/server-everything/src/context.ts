import type { Logger } from '@mcpkit/protocol-core';
import type { TasksExtension } from '@mcpkit/protocol-core/tasks';
import type { ServerNotifier } from '@modelcontextprotocol/server';
import type { RequestStateKeySource } from './shared/clientInput.js';
import type { Download } from './shared/download.js';
import type { Scheduler } from './shared/scheduler.js';
import type { SpentStates } from './shared/spentStates.js';

export const PROFILES = ['legacy', 'current', 'conformance'] as const;
export type Profile = (typeof PROFILES)[number];

/** Timings of the simulations, in milliseconds. The defaults are each profile's reference values; tests shorten them. */
export interface EverythingIntervals {
  /** Between two simulated log messages (current: 5000; legacy: 15 000). Legacy: 0 turns the simulation off. */
  loggingMs?: number;
  /** Between two rounds of `notifications/resources/updated` for the subscribed URIs (current: 5000; legacy: 10 000). Legacy: 0 turns them off. */
  resourceUpdatesMs?: number;
  /** Length of each stage of `simulate-research-query` (current: 1000). */
  researchStageMs?: number;
  /** `pollInterval` of the server's tasks, and how often the `*-async` tools poll the client's task (current: 1000). */
  taskPollMs?: number;
  /** Delay between `notifications/initialized` and the first `roots/list` (current: 350). */
  rootsSyncDelayMs?: number;
}

/** What every profile's server factory receives: the parsed configuration, passed down once. */
export interface EverythingOptions {
  /** `printEnv` / `get-env` show secret-looking values instead of `[redacted]` (the reference's output). */
  showEnvSecrets?: boolean;
  /** The environment `printEnv` / `get-env` report; defaults to `process.env` at call time. */
  env?: NodeJS.ProcessEnv;
  /** Where unexpected failures are logged (stderr in the CLI); silent by default. */
  logger?: Logger;
  /**
   * Fetches http(s) URLs (`gzip-file-as-resource`, legacy `zip`) through an SSRF-safe network policy. Without it, only
   * `data:` URIs are accepted and an http(s) URL is refused with a message saying so.
   */
  download?: Download;
  /** Largest file `gzip-file-as-resource` accepts, in bytes (the reference's `GZIP_MAX_FETCH_SIZE`). Default 10 MiB. */
  gzipMaxFetchSize?: number;
  /** Time limit of one download by `gzip-file-as-resource` (the reference's `GZIP_MAX_FETCH_TIME_MILLIS`). Default 30 000 ms. */
  gzipMaxFetchTimeMs?: number;
  /**
   * Hosts `gzip-file-as-resource` may fetch from, each with its subdomains (the reference's `GZIP_ALLOWED_DOMAINS`);
   * empty means any host the network policy allows. Default empty.
   */
  gzipAllowedDomains?: readonly string[];
  /** Total bytes of gzipped session resources one session may hold (current profile). Default 100 MiB. */
  sessionResourcesMaxBytes?: number;
  /** Timings of the simulations (see `EverythingIntervals`). */
  intervals?: EverythingIntervals;
  /**
   * The timers the simulations, progress steps, task stages and polls run on. Default: Node's timers, unref'd.
   * A test passes a clock it advances instead of waiting.
   */
  scheduler?: Scheduler;
  /**
   * The HMAC key (at least 32 bytes) sealing the `requestState` of 2026-07-28 `input_required` rounds. Every server
   * that may see a retry needs the same key: a 2026-07-28 request gets a fresh server, so the CLI makes one per process
   * (or takes `--request-state-key`, for several processes behind one address). Default: a random key per server,
   * which is enough only when one server sees every round (a 2025-era session, an in-process test). A function is
   * called for the key when the server first seals or checks a state (the CLI's key is made then, not at start).
   */
  requestStateKey?: RequestStateKeySource;
  /**
   * The `requestState`s already answered (`createSpentStates()`): a state is accepted once, a second retry with it
   * is refused (-32602). Like the key, every server that may see a retry must share it, so the CLI makes one per
   * process. Default: one per server (enough only when one server sees every round).
   */
  spentRequestStates?: SpentStates;
  /**
   * Announces list changes to the process's 2026-07-28 `subscriptions/listen` streams over HTTP, where each request
   * gets a fresh server (the `notify` of protocol-core's `createListenBus`, whose `bus` the runner serves). The
   * `conformance` profile's `test_trigger_*_change` tools use it. Over stdio the SDK routes a server's own
   * notifications instead.
   */
  listChanges?: ServerNotifier;
  /**
   * The tasks extension (`io.modelcontextprotocol/tasks`) of the `conformance` and `current` profiles. A 2026-07-28
   * request gets a fresh server, so every server must share one: the CLI makes one per process. Default: one per server.
   */
  tasks?: TasksExtension;
}
