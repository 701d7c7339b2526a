/**
 * OpenTelemetry, on the official packages, loaded only when `OTEL_*` configures it (`index.ts` imports this file
 * with `await import()`, so a server bin keeps it in a chunk of its own that a start without telemetry never reads).
 *
 * Spans and metrics follow the OpenTelemetry semantic conventions for MCP (status: development): one SERVER span
 * per request, named `{mcp.method.name} {target}` (`tools/call get_weather`, `prompts/get review`), continuing the
 * W3C trace context a client puts in `params._meta` (`traceparent`, `tracestate`), and the
 * `mcp.server.operation.duration` histogram. Ours besides: the open sessions and listen streams (gauges) and the
 * duration of store operations (`mcpkit.store.operation.duration`).
 */
import {
  type Attributes,
  DiagLogLevel,
  defaultTextMapGetter,
  diag,
  type Histogram,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { ConsoleMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, ConsoleSpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Logger } from '../logger.js';
import type { TelemetryConfig } from './config.js';
import type { RunnerTelemetry, TelemetryOptions } from './index.js';
import type { InboundRequest, ObservedRequest, RequestOutcome } from './observe.js';

/** The buckets the conventions advise for `mcp.*.operation.duration`, seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** Store operations are faster: from a tenth of a millisecond. */
const STORE_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Longest name (method, tool, prompt) or URI put on a span or metric; client-chosen strings are cut. */
const MAX_NAME = 128;
const MAX_URI = 1024;
/** JSON-RPC "method not found": its method name is the client's invention, recorded as `_OTHER`. */
const METHOD_NOT_FOUND = -32601;

function text(value: unknown, max: number): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, max) : undefined;
}

/** OpenTelemetry's own complaints (an export that failed) go to the server's log, at warn. */
function diagnostics(logger: Logger) {
  const warn = (message: string, ...args: unknown[]) => logger.warn(`OpenTelemetry: ${message}`, ...args);
  const drop = () => {};
  return { error: warn, warn, info: drop, debug: drop, verbose: drop };
}

export function createTelemetry(config: TelemetryConfig, { service, version, network, logger }: TelemetryOptions): RunnerTelemetry {
  diag.setLogger(diagnostics(logger), DiagLogLevel.WARN);
  const resource = resourceFromAttributes({ 'service.name': service, 'service.version': version }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const tracerProvider = config.traces
    ? new TracerProvider({
        resource,
        spanProcessors: [
          new BatchSpanProcessor({
            exporter:
              config.traces.exporter === 'console'
                ? new ConsoleSpanExporter()
                : config.traces.protocol === 'http/json'
                  ? new JsonTraceExporter()
                  : new ProtoTraceExporter(),
          }),
        ],
      })
    : undefined;
  const meterProvider = config.metrics
    ? new MeterProvider({
        resource,
        readers: [
          new PeriodicExportingMetricReader({
            exporter:
              config.metrics.exporter === 'console'
                ? new ConsoleMetricExporter()
                : config.metrics.protocol === 'http/json'
                  ? new JsonMetricExporter()
                  : new ProtoMetricExporter(),
            exportIntervalMillis: config.metrics.intervalMs,
            exportTimeoutMillis: config.metrics.timeoutMs,
          }),
        ],
      })
    : undefined;
  const tracer = tracerProvider?.getTracer('@mcpkit/protocol-core', version);
  const meter = meterProvider?.getMeter('@mcpkit/protocol-core', version);
  const operations: Histogram | undefined = meter?.createHistogram('mcp.server.operation.duration', {
    unit: 's',
    description: 'The duration of the MCP request as observed on the server, from its arrival until its response is sent.',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const storeOperations: Histogram | undefined = meter?.createHistogram('mcpkit.store.operation.duration', {
    unit: 's',
    description: "The duration of one operation of the server's store (memory: the graph file or PostgreSQL).",
    advice: { explicitBucketBoundaries: STORE_BUCKETS },
  });
  const propagator = new W3CTraceContextPropagator();

  function request(req: InboundRequest): ObservedRequest {
    const started = performance.now();
    const tool = req.method === 'tools/call' ? text(req.params?.name, MAX_NAME) : undefined;
    const prompt = req.method === 'prompts/get' ? text(req.params?.name, MAX_NAME) : undefined;
    const method = req.method.slice(0, MAX_NAME);
    const base: Attributes = { 'mcp.method.name': method, 'network.transport': network };
    if (tool) Object.assign(base, { 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' });
    if (prompt) base['gen_ai.prompt.name'] = prompt;
    let span: Span | undefined;
    if (tracer) {
      const attributes: Attributes = { ...base, 'jsonrpc.request.id': String(req.id) };
      if (req.sessionId) attributes['mcp.session.id'] = req.sessionId;
      if (req.protocolVersion) attributes['mcp.protocol.version'] = req.protocolVersion;
      const uri = /^resources\/(read|subscribe|unsubscribe)$/.test(req.method) ? text(req.params?.uri, MAX_URI) : undefined;
      if (uri) attributes['mcp.resource.uri'] = uri;
      const meta = req.params?._meta;
      const parent =
        typeof meta === 'object' && meta !== null ? propagator.extract(ROOT_CONTEXT, meta, defaultTextMapGetter) : ROOT_CONTEXT;
      span = tracer.startSpan(tool || prompt ? `${method} ${tool ?? prompt}` : method, { kind: SpanKind.SERVER, attributes }, parent);
    }
    const context = span?.spanContext();
    return {
      ...(context ? { scope: { traceId: context.traceId, spanId: context.spanId } } : {}),
      end(outcome: RequestOutcome, answeredVersion: string | undefined) {
        const attributes: Attributes = { ...base };
        const protocolVersion = req.protocolVersion ?? answeredVersion;
        if (protocolVersion) attributes['mcp.protocol.version'] = protocolVersion;
        let failure: string | undefined;
        if (outcome.kind === 'error') {
          failure = String(outcome.code);
          attributes['rpc.response.status_code'] = failure;
          if (outcome.code === METHOD_NOT_FOUND) attributes['mcp.method.name'] = '_OTHER';
        } else if (outcome.kind === 'abandoned') {
          failure = outcome.reason;
        } else if (
          tool &&
          typeof outcome.result === 'object' &&
          outcome.result !== null &&
          (outcome.result as { isError?: unknown }).isError === true
        ) {
          failure = 'tool_error';
        }
        if (failure) attributes['error.type'] = failure;
        if (span) {
          if (protocolVersion) span.setAttribute('mcp.protocol.version', protocolVersion);
          if (failure) {
            span.setAttribute('error.type', failure);
            if (outcome.kind === 'error') span.setAttribute('rpc.response.status_code', failure);
            span.setStatus({ code: SpanStatusCode.ERROR, ...(outcome.kind === 'error' ? { message: outcome.message } : {}) });
          }
          span.end();
        }
        operations?.record((performance.now() - started) / 1000, attributes);
      },
    };
  }

  return {
    enabled: true,
    observer: { request },
    recordStoreOperation(store, operation, seconds, errorType) {
      storeOperations?.record(seconds, {
        'mcpkit.store': store,
        'mcpkit.store.operation': operation,
        ...(errorType ? { 'error.type': errorType } : {}),
      });
    },
    watch(counts) {
      if (!meter) return;
      if (counts.sessionCount) {
        const sessions = counts.sessionCount;
        meter
          .createObservableGauge('mcpkit.server.sessions', {
            unit: '{session}',
            description: 'Open MCP sessions (2025 Streamable HTTP and SSE).',
          })
          .addCallback((result) => result.observe(sessions()));
      }
      if (counts.listenCount) {
        const listens = counts.listenCount;
        meter
          .createObservableGauge('mcpkit.server.listen_streams', {
            unit: '{stream}',
            description: 'Open 2026 subscriptions/listen streams.',
          })
          .addCallback((result) => result.observe(listens()));
      }
    },
    async shutdown() {
      // Shutting down flushes: the spans still batched and one last collection of the metrics.
      const results = await Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
      for (const r of results) if (r.status === 'rejected') logger.warn('OpenTelemetry: flushing at shutdown failed:', r.reason);
    },
  };
}
