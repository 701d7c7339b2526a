/**
 * Telemetry as the runner and apps see it. This file is small and imports nothing of OpenTelemetry: `startTelemetry`
 * loads the SDK (`sdk.ts`) only when the `OTEL_*` variables configure it, so a server without telemetry reads none
 * of it and pays one `if` where it would record.
 */
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { telemetrySettings } from './config.js';
import type { RequestObserver } from './observe.js';

/** What an app may record; `enabled` is false, and every call a no-op, when telemetry is off. */
export interface Telemetry {
  readonly enabled: boolean;
  /** One store operation took `seconds`; `errorType` when it failed (the error's name). */
  recordStoreOperation(store: string, operation: string, seconds: number, errorType?: string): void;
}

/** The runner's side: the request observer, the gauges, and the flush at shutdown. */
export interface RunnerTelemetry extends Telemetry {
  readonly observer: RequestObserver;
  /** Reports the transport's open sessions and listen streams as gauges. */
  watch(counts: { sessionCount?: () => number; listenCount?: () => number }): void;
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

export const telemetryOff: Telemetry = { enabled: false, recordStoreOperation: () => {} };

export interface TelemetryOptions {
  /** `service.name` and `service.version` unless `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` say otherwise. */
  service: string;
  version: string;
  /** `network.transport`: `pipe` for stdio, `tcp` for HTTP. */
  network: 'pipe' | 'tcp';
  logger: Logger;
}

/** Starts OpenTelemetry when `env` configures it; `undefined` (nothing loaded) when it does not, or it cannot load. */
export async function startTelemetry(env: Readonly<Record<string, string | undefined>>, options: TelemetryOptions) {
  const { config, warnings } = telemetrySettings(env);
  for (const warning of warnings) options.logger.warn(`${warning}`);
  if (!config) return undefined;
  try {
    const { createTelemetry } = await import('./sdk.js');
    return createTelemetry(config, options);
  } catch (error) {
    // A library user's install may lack the optional OpenTelemetry packages (a server bin bundles them).
    options.logger.warn(
      `OpenTelemetry is configured (OTEL_*) but could not be loaded: ${errorMessage(error)}; install the @opentelemetry packages listed in @mcpkit/protocol-core's peerDependencies`,
    );
    return undefined;
  }
}

/**
 * `target` with the calls of `methods` timed into `telemetry` as operations of `store` (e.g. memory's graph store:
 * `file` or `postgres`). When telemetry is off, `target` itself is returned: nothing is wrapped.
 */
export function timeStoreCalls<T extends object>(
  target: T,
  store: string,
  methods: readonly (keyof T & string)[],
  telemetry: Telemetry,
): T {
  if (!telemetry.enabled) return target;
  const timed = new Map<PropertyKey, unknown>();
  for (const name of methods) {
    const method = target[name];
    if (typeof method !== 'function') continue;
    timed.set(name, async (...args: unknown[]) => {
      const started = performance.now();
      try {
        const result = await (method as (...a: unknown[]) => unknown).apply(target, args);
        telemetry.recordStoreOperation(store, name, (performance.now() - started) / 1000);
        return result;
      } catch (error) {
        const type = error instanceof Error ? error.name : 'Error';
        telemetry.recordStoreOperation(store, name, (performance.now() - started) / 1000, type);
        throw error;
      }
    });
  }
  return new Proxy(target, {
    get(object, key) {
      if (timed.has(key)) return timed.get(key);
      const value = Reflect.get(object, key, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}
