/**
 * Issue "Hosted for a team", item 6: what OpenTelemetry costs. One build (this checkout's
 * `mcp-server-everything --profile current`), three sides in one run, over stdio, `tools/call echo`:
 *
 * - `off`: no `OTEL_*` variable, as every user runs it by default (nothing of OpenTelemetry is loaded; each request
 *   runs in its log scope, one `AsyncLocalStorage.run`);
 * - `on`: traces and metrics exported over OTLP/HTTP (protobuf, the default) to a receiver in this process on
 *   loopback that answers 200, with the SDK's default batching (spans every 5 s) and a 1 s metric interval;
 * - `floor`: the bare Node answerer (`floor.mjs`), for scale.
 *
 * - `no hook` (with `--baseline <ref>`, e.g. `57a9e67`, the commit before telemetry): that build's bin, which has no
 *   request hook at all, so `off` can be compared with what it replaced.
 *
 * Sides are connected at once and measured in alternating blocks, so machine noise lands on all alike; the ratios
 * to `off` are printed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Baseline, DEFAULT_BASELINE, materialiseBaseline } from '../baseline.js';
import {
  type BenchContext,
  coldStarts,
  connectStdio,
  floorSpec,
  latency,
  ms,
  nodeSpec,
  peakRss,
  ratio,
  type StdioConnection,
  type Suite,
  stats,
  throughput,
  versus,
  withTimeout,
} from '../harness.js';
import { snapshotOurs } from '../oursSnapshot.js';

const CONCURRENCY = 8;
const MESSAGE = 'hello from the telemetry bench';
/** "No slower with telemetry off": off may not be more than 5 % (noise) below the no-telemetry figures. */
const OFF_TOLERANCE = 1.05;

/** An OTLP/HTTP sink on loopback: reads each export and answers 200. Counts what it got. */
async function startSink() {
  let posts = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    req.on('end', () => {
      posts++;
      res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats: () => ({ posts, bytes }),
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function echo(conn: StdioConnection) {
  return conn.client.callTool({ name: 'echo', arguments: { message: MESSAGE } });
}

const suite: Suite<Baseline | undefined> = {
  name: 'telemetry',
  description: 'OpenTelemetry off vs on (OTLP/HTTP to a loopback sink), same build, stdio echo',
  async prepare(ctx: BenchContext) {
    // The default baseline (the last SDK v1 build) says nothing about this hook: only a baseline asked for is used.
    if (ctx.baseline === DEFAULT_BASELINE) return undefined;
    return materialiseBaseline({ repoRoot: ctx.repoRoot, benchDir: ctx.benchDir, ref: ctx.baseline, print: (t) => ctx.print(t) });
  },
  async run(ctx: BenchContext, baseline) {
    await using sink = await startSink();
    using ours = snapshotOurs(ctx.repoRoot, ctx.benchDir, ['server-everything']);
    const bin = ours.bin('server-everything');
    const off = nodeSpec('off', bin, ['--profile', 'current']);
    const on = nodeSpec('on', bin, ['--profile', 'current'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_SERVICE_NAME: 'bench',
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
    });
    const noHook = baseline ? nodeSpec('no hook', baseline.bin('server-everything'), ['--profile', 'current']) : undefined;
    ctx.print(`server: ${bin} --profile current; on = OTEL_EXPORTER_OTLP_ENDPOINT=${sink.url} (http/protobuf)`);
    if (noHook) ctx.print(`no hook: ${noHook.args[0]} (${baseline!.sha.slice(0, 9)})`);
    else ctx.print('no "no hook" side: pass --baseline <the commit before telemetry> for one');

    const runs = ctx.scale(20, 5);
    const specs = [off, on, floorSpec(), ...(noHook ? [noHook] : [])];
    const coldResults = await coldStarts(specs, runs, { warmup: ctx.scale(3, 1) });
    const cold = Object.fromEntries(specs.map((spec, i) => [spec.label, coldResults[i]!.stats]));
    ctx.record('coldStart', cold);
    ctx.table({
      title: `cold start: spawn → initialize result (${runs} runs each, interleaved)`,
      headers: ['side', 'median', 'p90', 'vs off'],
      rows: specs.map(({ label: k }) => [k, ms(cold[k]!.median), ms(cold[k]!.p90), ratio(cold[k]!.median, cold.off!.median)]),
    });

    const calls = ctx.scale(2000, 200);
    const total = ctx.scale(4000, 400);
    const blocks = ctx.scale(4, 1);
    await using offConn = await connectStdio(off);
    await using onConn = await connectStdio(on);
    await using noHookConn = noHook ? await connectStdio(noHook) : undefined;
    const sides = [
      { key: 'off', conn: offConn, samples: [] as number[], seconds: 0, done: 0 },
      { key: 'on', conn: onConn, samples: [] as number[], seconds: 0, done: 0 },
      ...(noHookConn ? [{ key: 'no hook', conn: noHookConn, samples: [] as number[], seconds: 0, done: 0 }] : []),
    ];
    for (const side of sides) {
      const res = await echo(side.conn);
      if (res.isError) throw new Error(`${side.key}: echo failed: ${JSON.stringify(res.content).slice(0, 300)}`);
      for (let w = 0; w < 200; w++) await echo(side.conn);
      // Concurrent calls warm up slower than sequential ones here (calls/s rose 10× over the first passes).
      await throughput(() => echo(side.conn), total / blocks, CONCURRENCY);
    }
    for (let b = 0; b < blocks; b++) {
      // Every other block in reverse order: no side always runs first, or right after the exporting one.
      for (const side of b % 2 ? [...sides].reverse() : sides) {
        const lat = await withTimeout(
          latency(() => echo(side.conn), calls / blocks, { warmup: 0 }),
          120_000,
          `${side.key} latency`,
        );
        side.samples.push(...lat.samples);
        const thr = await withTimeout(
          throughput(() => echo(side.conn), total / blocks, CONCURRENCY),
          120_000,
          `${side.key} throughput`,
        );
        side.seconds += thr.seconds;
        side.done += thr.total;
      }
    }
    const load = Object.fromEntries(
      sides.map((s) => [s.key, { latency: stats(s.samples), perSecond: s.done / s.seconds, rss: peakRss(s.conn.pid)?.peak }]),
    ) as Record<string, { latency: ReturnType<typeof stats>; perSecond: number; rss: number | undefined }>;
    const o = load.off!;
    ctx.record('load', load);
    ctx.record('sink', sink.stats());
    ctx.table({
      title: `tools/call echo over stdio (${calls} sequential calls; ${total} with ${CONCURRENCY} in flight; ${blocks} alternating blocks)`,
      headers: ['side', 'latency median', 'p99', 'calls/s (8 in flight)'],
      rows: [
        ...sides.map(({ key }) => [key, ms(load[key]!.latency.median), ms(load[key]!.latency.p99), load[key]!.perSecond.toFixed(0)]),
        ...sides
          .filter(({ key }) => key !== 'off')
          .map(({ key }) => [
            `${key} / off`,
            ratio(load[key]!.latency.median, o.latency.median),
            ratio(load[key]!.latency.p99, o.latency.p99),
            ratio(load[key]!.perSecond, o.perSecond),
          ]),
      ],
      notes: [`the sink received ${sink.stats().posts} OTLP exports (${sink.stats().bytes} bytes) from the "on" side`],
    });
    // "No slower with telemetry off": against the build without the hook when there is one, else against "on".
    const ref = noHook ? 'no hook' : 'on';
    ctx.check(
      `telemetry off: cold start no slower than ${ref} (median ≤ ${OFF_TOLERANCE}×)`,
      cold.off!.median <= OFF_TOLERANCE * cold[ref]!.median,
      versus(cold.off!.median, cold[ref]!.median),
    );
    ctx.check(
      `telemetry off: calls/s no lower than ${ref} (≥ ÷ ${OFF_TOLERANCE})`,
      o.perSecond * OFF_TOLERANCE >= load[ref]!.perSecond,
      ratio(o.perSecond, load[ref]!.perSecond),
    );
    ctx.check(
      `telemetry off: latency no higher than ${ref} (median ≤ ${OFF_TOLERANCE}×)`,
      o.latency.median <= OFF_TOLERANCE * load[ref]!.latency.median,
      ratio(o.latency.median, load[ref]!.latency.median),
    );
  },
};

export default suite;
