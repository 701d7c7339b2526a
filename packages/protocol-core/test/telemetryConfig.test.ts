import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { telemetrySettings } from '../src/telemetry/config.js';
import { observeApp } from '../src/telemetry/observe.js';
import { httpRequestId, inRequest } from '../src/telemetry/requestScope.js';

describe('telemetrySettings (OTEL_* only)', () => {
  it('is off without an exporter or endpoint, and with OTEL_SDK_DISABLED', () => {
    expect(telemetrySettings({})).toEqual({ warnings: [] });
    expect(telemetrySettings({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({ warnings: [] });
    expect(telemetrySettings({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).config).toBeUndefined();
  });

  it('turns both signals on with an endpoint, each off with its exporter set to none', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(telemetrySettings(endpoint).config).toEqual({
      traces: { exporter: 'otlp', protocol: 'http/protobuf' },
      metrics: { exporter: 'otlp', protocol: 'http/protobuf', intervalMs: 60_000, timeoutMs: 30_000 },
    });
    expect(telemetrySettings({ ...endpoint, OTEL_METRICS_EXPORTER: 'none' }).config).toEqual({
      traces: { exporter: 'otlp', protocol: 'http/protobuf' },
    });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }).config).toEqual({
      traces: { exporter: 'otlp', protocol: 'http/protobuf' },
    });
    expect(telemetrySettings({ OTEL_TRACES_EXPORTER: 'console' }).config).toEqual({
      traces: { exporter: 'console', protocol: 'http/protobuf' },
    });
  });

  it('turns a signal off with a warning for what it cannot use, never failing', () => {
    const grpc = telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(grpc.config).toBeUndefined();
    expect(grpc.warnings).toContain(
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported (http/protobuf or http/json): traces are not exported',
    );
    const zipkin = telemetrySettings({ OTEL_TRACES_EXPORTER: 'zipkin' });
    expect(zipkin).toEqual({ warnings: ['OTEL_TRACES_EXPORTER: zipkin is not supported (otlp, console or none)'] });
    const interval = telemetrySettings({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_INTERVAL: 'soon' });
    expect(interval.config?.metrics?.intervalMs).toBe(60_000);
    expect(interval.warnings).toEqual(['OTEL_METRIC_EXPORT_INTERVAL=soon is not a number of milliseconds; using 60000']);
    expect(
      telemetrySettings({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json' }).config?.metrics?.protocol,
    ).toBe('http/json');
  });
});

describe('the logger in a request scope', () => {
  const capture = (format: 'text' | 'json') => {
    const lines: string[] = [];
    const logger = createLogger({ name: 'srv', format, write: (l) => lines.push(l), now: () => new Date('2026-01-02T03:04:05.000Z') });
    return { logger, lines };
  };

  it('text: unchanged outside a request, the ids at the end inside one', () => {
    const { logger, lines } = capture('text');
    logger.info('outside');
    inRequest({ http: 'h-1' }, () => inRequest({ id: 7, method: 'tools/call' }, () => logger.warn('inside', { a: 1 })));
    expect(lines).toEqual(['[srv] info: outside\n', '[srv] warn: inside {"a":1} [http h-1 req 7]\n']);
  });

  it('json: one object per line, with the ids of the request', () => {
    const { logger, lines } = capture('json');
    logger.child('store').error('broken\nline');
    inRequest({ id: 'a', method: 'ping', session: 's', traceId: 't', spanId: 'p' }, () => logger.info('hi'));
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { time: '2026-01-02T03:04:05.000Z', level: 'error', name: 'srv:store', msg: 'broken\nline' },
      {
        time: '2026-01-02T03:04:05.000Z',
        level: 'info',
        name: 'srv',
        msg: 'hi',
        requestId: 'a',
        method: 'ping',
        sessionId: 's',
        traceId: 't',
        spanId: 'p',
      },
    ]);
    expect(lines.every((l) => l.endsWith('}\n') && l.split('\n').length === 2)).toBe(true);
  });

  it('takes a plain X-Request-Id, and makes one for anything else', () => {
    const fresh = () => 'fresh';
    expect(httpRequestId('abc-123.x', fresh)).toBe('abc-123.x');
    expect(httpRequestId(['first', 'second'], fresh)).toBe('first');
    expect(httpRequestId('bad id\n[forged]', fresh)).toBe('fresh');
    expect(httpRequestId('x'.repeat(129), fresh)).toBe('fresh');
    expect(httpRequestId(undefined, fresh)).toBe('fresh');
  });
});

describe('observeApp', () => {
  it('returns the app itself when there is nothing to observe: telemetry off with text logs costs no wrapper', () => {
    const app = { createServer: () => ({}) as never };
    expect(observeApp(app, { scopes: false })).toBe(app);
    expect(observeApp(app, { scopes: true })).not.toBe(app);
  });
});
