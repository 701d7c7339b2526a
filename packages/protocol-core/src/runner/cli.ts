import { type AuthConfig, authConfigFrom } from '../auth/options.js';
import { type ConfigOf, configWarnings, formatHelp, type OptionSpecs, parseConfig } from '../config.js';
import { ConfigError, errorMessage } from '../errors.js';
import { createLogger, type Logger } from '../logger.js';
import { startTelemetry, type Telemetry, telemetryOff } from '../telemetry/index.js';
import { observeApp } from '../telemetry/observe.js';
import { MAX_TIMER_MS } from './drain.js';
import { type RunnerConfig, runnerOptions } from './runnerOptions.js';
import { serveStdio } from './stdio.js';
import type { RunningServer, ServerApp } from './types.js';

export { type RunnerConfig, runnerOptions };

export interface CliApp<O extends OptionSpecs> {
  /** The bin name, e.g. `mcp-server-memory`; used in help and error lines. */
  bin: string;
  version: string;
  description: string;
  /** The server's own flags; merged with the runner's. */
  options: O;
  /**
   * Builds the app once from the parsed config. A `ConfigError` thrown here exits 2 like a bad flag. `telemetry`
   * records what the runner cannot see (a store's latency: `timeStoreCalls`); a no-op unless `OTEL_*` turns it on.
   */
  create: (config: ConfigOf<O> & RunnerConfig, logger: Logger, runtime: { telemetry: Telemetry }) => ServerApp | Promise<ServerApp>;
  /** Printed at the end of --help (environment notes, examples). */
  epilog?: string;
  /**
   * Words accepted as a leading positional argument in place of `--transport`, for drop-in compatibility with a
   * reference bin that takes one (`mcp-server-everything streamableHttp` → `--transport http`).
   */
  transportAliases?: Readonly<Record<string, RunnerConfig['transport']>>;
}

interface CliIo {
  argv?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

/**
 * Turns a leading positional transport word (`streamableHttp`) into `--transport <value>`. Without aliases, or
 * when the first argument is a flag, `argv` is returned as is (and the flag parser rejects stray positionals).
 */
export function applyTransportAlias(
  argv: readonly string[],
  aliases: Readonly<Record<string, RunnerConfig['transport']>> | undefined,
): readonly string[] {
  const [first, ...rest] = argv;
  if (!aliases || first === undefined || first.startsWith('-')) return argv;
  const transport = Object.hasOwn(aliases, first) ? aliases[first] : undefined;
  if (!transport) throw new ConfigError(`unknown transport "${first}" (expected ${Object.keys(aliases).join(', ')}, or --transport)`);
  return ['--transport', transport, ...rest];
}

/**
 * The app's flags plus the runner's. A short letter the app claims for itself is taken off the runner's flag that
 * had it (that flag keeps its long form). `-V` is `--version` on every bin, and `-v` is left to a bin's own use
 * (mcp-server-git's `-v` is the reference's "verbose").
 */
export function mergeOptions<O extends OptionSpecs>(appOptions: O): O & typeof runnerOptions {
  const taken = new Set(
    Object.values(appOptions)
      .map((spec) => spec.short)
      .filter(Boolean),
  );
  const runner: OptionSpecs = {};
  for (const [name, spec] of Object.entries(runnerOptions as OptionSpecs)) {
    if (spec.short && taken.has(spec.short)) {
      const { short: _taken, ...rest } = spec;
      runner[name] = rest;
    } else {
      runner[name] = spec;
    }
  }
  return { ...appOptions, ...runner } as O & typeof runnerOptions;
}

/**
 * The whole CLI of a server bin: parse flags and env once, print --help/--version, build the app,
 * serve it over the chosen transport, and shut down cleanly on stdin close (stdio), SIGINT or
 * SIGTERM, exiting 0. Bad configuration: one line on stderr naming the flag, exit code 2.
 */
export async function runCli<O extends OptionSpecs>(app: CliApp<O>, io: CliIo = {}): Promise<void> {
  const env = io.env ?? process.env;
  const options = mergeOptions(app.options);
  let config: ConfigOf<O> & RunnerConfig;
  let auth: AuthConfig | undefined;
  try {
    const argv = applyTransportAlias(io.argv ?? process.argv.slice(2), app.transportAliases);
    config = parseConfig(options, argv, env) as ConfigOf<O> & RunnerConfig;
    auth = authConfigFrom(config, env);
    if (auth && config.transport === 'stdio')
      throw new ConfigError('--oauth-issuer protects the http and sse transports; stdio has no requests to authenticate', '--oauth-issuer');
    if (auth && config.transport === 'ws')
      throw new ConfigError(
        '--oauth-issuer protects the http and sse transports; over ws use --auth-token (the token is checked once, on the upgrade)',
        '--oauth-issuer',
      );
    if (auth && config.authToken !== undefined)
      throw new ConfigError('--auth-token and --oauth-issuer cannot be used together: choose one way to authenticate', '--auth-token');
  } catch (error) {
    process.stderr.write(`${app.bin}: ${errorMessage(error)} (see ${app.bin} --help)\n`);
    process.exitCode = 2;
    return;
  }
  if (config.help) {
    process.stdout.write(formatHelp(app.bin, app.description, options) + (app.epilog ? `\n${app.epilog.trimEnd()}\n` : ''));
    return;
  }
  if (config.version) {
    process.stdout.write(`${app.version}\n`);
    return;
  }
  const logger = createLogger({ name: app.bin, level: config.logLevel, format: config.logFormat });
  for (const warning of configWarnings(config)) {
    // PORT means nothing to a stdio server: an editor's environment may carry any value.
    if (warning.key === 'port' && config.transport === 'stdio') continue;
    logger.warn(warning.message);
  }
  // OpenTelemetry only when OTEL_* configures it (then loaded, else nothing is); flushed when the server stops.
  const network = config.transport === 'stdio' ? 'pipe' : 'tcp';
  const telemetry = await startTelemetry(env, { service: app.bin, version: app.version, network, logger });
  let serverApp: ServerApp;
  try {
    // With json logs every request runs in its scope (its lines carry its id); with telemetry it is traced and measured.
    const created = await app.create(config, logger, { telemetry: telemetry ?? telemetryOff });
    serverApp = observeApp(created, { scopes: config.logFormat === 'json', observer: telemetry?.observer });
  } catch (error) {
    await telemetry?.shutdown();
    if (error instanceof ConfigError) {
      process.stderr.write(`${app.bin}: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    logger.error('failed to start:', error);
    process.exitCode = 1;
    return;
  }

  // The signal handlers go in before anything is served: a SIGTERM that arrives right after the
  // "running" line (or during start-up) must still close cleanly and exit 0, not kill the process.
  // A signal drains (calls in flight get --shutdown-grace to finish); a second one exits at once.
  let running: (RunningServer & { drain?(graceMs: number): Promise<boolean> }) | undefined;
  let stopping = false;
  const grace = config.shutdownGrace;
  async function shutdown(reason: string, drain: boolean) {
    if (stopping) return;
    stopping = true;
    logger.debug(`shutting down: ${reason}`);
    // Past the grace, closing streams and the app gets 5s more.
    const force = setTimeout(
      () => {
        logger.warn(`shutdown took over ${Math.round((grace + 5000) / 1000)}s; exiting anyway`);
        process.exit(0);
      },
      Math.min(grace + 5000, MAX_TIMER_MS),
    );
    force.unref();
    try {
      if (drain && running?.drain && !(await running.drain(grace)))
        logger.warn(`the shutdown grace (${grace}ms) ran out with calls in flight; they are cut`);
      if (running) await running.close();
      else await serverApp.close?.();
    } catch (error) {
      logger.error('error while shutting down:', error);
    }
    await telemetry?.shutdown();
    process.exit(0);
  }
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting now, cutting what is in flight`);
      process.exit(1);
    }
    void shutdown(signal, true);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    if (config.transport === 'stdio') {
      const stdio = await serveStdio(serverApp);
      running = stdio;
      void stdio.ended.then(() => shutdown('stdin closed', false));
      logger.info(`${app.bin} ${app.version} running on stdio`);
    } else if (config.transport === 'ws') {
      // Loaded only when asked for, like the HTTP runner.
      const { serveWs } = await import('./ws.js');
      if (config.authToken === undefined && !isLoopbackHost(config.host))
        logger.warn(
          `listening on ${config.host} without authentication: anyone who can reach this address can use every tool; add --auth-token, or bind 127.0.0.1`,
        );
      const ws = await serveWs(serverApp, {
        host: config.host,
        port: config.port,
        ...(config.authToken !== undefined ? { authToken: config.authToken } : {}),
        maxSessions: config.maxSessions,
        maxMessageBytes: config.maxBody,
        maxListensPerConnection: config.maxListensPerPrincipal,
        allowedHosts: config.allowedHost,
        allowedOrigins: config.allowedOrigin,
        logger,
      });
      running = ws;
      logger.info(`${app.bin} ${app.version} listening on ${ws.endpoint}${config.authToken ? ' (bearer token required)' : ''}`);
    } else {
      // Loaded only when asked for: a stdio server never pays for the HTTP and SSE code.
      const { serveHttp } = await import('./http/serve.js');
      const guard = auth ? await startAuthGuard(auth, serverApp, app.bin, logger) : undefined;
      if (!guard && config.authToken === undefined && !isLoopbackHost(config.host))
        logger.warn(
          `listening on ${config.host} without authentication: anyone who can reach this address can use every tool; add --oauth-issuer or --auth-token, or bind 127.0.0.1`,
        );
      const http = await serveHttp(serverApp, {
        mode: config.transport,
        host: config.host,
        port: config.port,
        stateless: config.stateless,
        ...(config.authToken !== undefined ? { authToken: config.authToken } : {}),
        ...(guard ? { auth: guard } : {}),
        maxSessions: config.maxSessions,
        maxListens: config.maxListens,
        maxListensPerPrincipal: config.maxListensPerPrincipal,
        sessionIdleMs: config.sessionTimeout,
        maxBodyBytes: config.maxBody,
        requestTimeoutMs: config.requestTimeout,
        shutdownGraceMs: grace,
        allowedHosts: config.allowedHost,
        allowedOrigins: config.allowedOrigin,
        logger,
      });
      running = http;
      telemetry?.watch(http);
      const authNote = guard
        ? ` (OAuth: tokens from ${guard.issuer} for ${guard.resource})`
        : config.authToken
          ? ' (bearer token required)'
          : '';
      logger.info(`${app.bin} ${app.version} listening on ${http.endpoint}${authNote}`);
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${app.bin}: ${error.message}\n`);
      await serverApp.close?.();
      await telemetry?.shutdown();
      process.exitCode = 2;
      return;
    }
    logger.error(`could not start the ${config.transport} transport: ${errorMessage(error)}`);
    await serverApp.close?.();
    await telemetry?.shutdown();
    process.exitCode = 1;
    return;
  }
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
}

/** The auth guard for `--oauth-issuer`, loaded only then; the issuer's metadata is fetched once now, so a wrong issuer shows at start. */
async function startAuthGuard(auth: AuthConfig, serverApp: ServerApp, bin: string, logger: Logger) {
  const { createAuthGuard } = await import('../auth/guard.js');
  const guard = createAuthGuard(auth, { ...(serverApp.scopes ? { scopes: serverApp.scopes } : {}), resourceName: bin, logger });
  await guard
    .ready()
    .catch((error: unknown) =>
      logger.warn(`the authorization server is not reachable yet: ${errorMessage(error)}; requests get 503 until it is`),
    );
  return Object.assign(guard, { issuer: auth.issuer });
}
