/**
 * A real OTLP/HTTP receiver for tests of telemetry: a node:http server on 127.0.0.1 that answers every POST with 200
 * and keeps the bodies posted to `/v1/traces` and `/v1/metrics` (point a bin at it with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` and `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`, so bodies are JSON), plus readers of
 * the spans and metric points in them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type OtlpValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
export type OtlpKeyValue = { key: string; value: OtlpValue };

export interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: OtlpKeyValue[];
  status?: { code?: number; message?: string };
}

export interface OtlpPoint {
  attributes: OtlpKeyValue[];
  count?: string | number;
  asInt?: string | number;
  asDouble?: number;
}

export interface OtlpReceiver extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  /** The JSON bodies received on `path` (`/v1/traces`, `/v1/metrics`), in order. */
  posts(path: string): unknown[];
  /** Every span received so far. */
  spans(): OtlpSpan[];
  /** Every metric point received so far, by metric name. */
  metrics(): Map<string, OtlpPoint[]>;
}

/** The environment that points a bin at `receiver` (JSON bodies; nothing exported on a timer, all at shutdown). */
export function otlpEnv(receiver: { url: string }): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_METRIC_EXPORT_INTERVAL: '3600000',
    OTEL_BSP_SCHEDULE_DELAY: '3600000',
  };
}

/** An attribute list as an object (numbers as the receiver got them). */
export function otlpAttributes(item: { attributes: OtlpKeyValue[] }): Record<string, string | number | boolean | undefined> {
  return Object.fromEntries(
    item.attributes.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue]),
  );
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: { path: string; body: unknown }[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => {
      let body: unknown = text;
      if (req.headers['content-type']?.includes('json')) {
        try {
          body = JSON.parse(text);
        } catch {
          res.writeHead(400).end();
          return;
        }
      }
      received.push({ path: req.url ?? '', body });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const posts = (path: string) => received.filter((r) => r.path === path).map((r) => r.body);
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    spans: () =>
      posts('/v1/traces').flatMap((b) =>
        (b as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap((r) =>
          r.scopeSpans.flatMap((s) => s.spans),
        ),
      ),
    metrics() {
      const found = new Map<string, OtlpPoint[]>();
      for (const body of posts('/v1/metrics')) {
        for (const r of (body as { resourceMetrics: { scopeMetrics: { metrics: Record<string, unknown>[] }[] }[] }).resourceMetrics)
          for (const s of r.scopeMetrics)
            for (const m of s.metrics) {
              const data = (m.histogram ?? m.gauge ?? m.sum) as { dataPoints: OtlpPoint[] } | undefined;
              const name = String(m.name);
              found.set(name, [...(found.get(name) ?? []), ...(data?.dataPoints ?? [])]);
            }
      }
      return found;
    },
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
