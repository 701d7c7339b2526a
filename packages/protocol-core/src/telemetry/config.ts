/**
 * Whether OpenTelemetry is on, read from the standard `OTEL_*` variables only; nothing of OpenTelemetry is loaded
 * to decide. Off unless an exporter is configured:
 * - traces: `OTEL_TRACES_EXPORTER=otlp|console`, or an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 *   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) with `OTEL_TRACES_EXPORTER` unset; `none` turns them off;
 * - metrics: the same with `OTEL_METRICS_EXPORTER` and `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`;
 * - `OTEL_SDK_DISABLED=true` turns both off.
 * OTLP goes over HTTP, `http/protobuf` (the default) or `http/json` (`OTEL_EXPORTER_OTLP_PROTOCOL`, or its
 * `_TRACES_`/`_METRICS_` form). These variables are shared with every other program of the environment, so a value
 * we cannot use (gRPC, an unknown exporter, a bad interval) turns that signal off with a warning instead of
 * stopping the server, as a bad `LOG_LEVEL` is ignored.
 * The exporters read the rest themselves (endpoint, `OTEL_EXPORTER_OTLP_HEADERS`, timeouts, compression), and the
 * resource comes from `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` over the bin's name and version.
 */
type OtlpProtocol = 'http/protobuf' | 'http/json';

interface SignalConfig {
  exporter: 'otlp' | 'console';
  protocol: OtlpProtocol;
}

export interface TelemetryConfig {
  traces?: SignalConfig;
  metrics?: SignalConfig & { intervalMs: number; timeoutMs: number };
}

export interface TelemetrySettings {
  /** Undefined when both signals are off: then nothing is loaded. */
  config?: TelemetryConfig;
  warnings: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function signal(env: Env, kind: 'TRACES' | 'METRICS', warnings: string[]): SignalConfig | undefined {
  const exporterVar = `OTEL_${kind}_EXPORTER`;
  const listed = value(env, exporterVar)
    ?.toLowerCase()
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const endpoint = value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') ?? value(env, `OTEL_EXPORTER_OTLP_${kind}_ENDPOINT`);
  let exporter: SignalConfig['exporter'] | undefined;
  if (listed === undefined) {
    if (endpoint === undefined) return undefined;
    exporter = 'otlp';
  } else {
    if (listed.includes('none')) return undefined;
    const known = listed.filter((name): name is SignalConfig['exporter'] => name === 'otlp' || name === 'console');
    const unknown = listed.filter((name) => name !== 'otlp' && name !== 'console');
    if (unknown.length > 0) warnings.push(`${exporterVar}: ${unknown.join(', ')} is not supported (otlp, console or none)`);
    if (known.length === 0) return undefined;
    exporter = known.includes('otlp') ? 'otlp' : 'console';
  }
  const protocolVar = value(env, `OTEL_EXPORTER_OTLP_${kind}_PROTOCOL`)
    ? `OTEL_EXPORTER_OTLP_${kind}_PROTOCOL`
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = value(env, protocolVar)?.toLowerCase() ?? 'http/protobuf';
  if (exporter === 'otlp' && protocol !== 'http/protobuf' && protocol !== 'http/json') {
    warnings.push(`${protocolVar}=${protocol} is not supported (http/protobuf or http/json): ${kind.toLowerCase()} are not exported`);
    return undefined;
  }
  return { exporter, protocol: protocol === 'http/json' ? 'http/json' : 'http/protobuf' };
}

function millis(env: Env, name: string, fallback: number, warnings: string[]): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const ms = Number(raw);
  if (Number.isInteger(ms) && ms > 0 && ms <= 24 * 3600_000) return ms;
  warnings.push(`${name}=${raw} is not a number of milliseconds; using ${fallback}`);
  return fallback;
}

export function telemetrySettings(env: Env): TelemetrySettings {
  const warnings: string[] = [];
  if (value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { warnings };
  const traces = signal(env, 'TRACES', warnings);
  const metrics = signal(env, 'METRICS', warnings);
  if (!traces && !metrics) return { warnings };
  const config: TelemetryConfig = {};
  if (traces) config.traces = traces;
  if (metrics) {
    const intervalMs = millis(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000, warnings);
    const timeoutMs = Math.min(millis(env, 'OTEL_METRIC_EXPORT_TIMEOUT', 30_000, warnings), intervalMs);
    config.metrics = { ...metrics, intervalMs, timeoutMs };
  }
  return { config, warnings };
}
