import {
  type BenchContext,
  binPath,
  coldStarts,
  connectStdio,
  floorSpec,
  latency,
  mib,
  ms,
  nodeSpec,
  peakRss,
  type Rss,
  ratio,
  type Stats,
  type StdioConnection,
  type Suite,
  stats,
  type Throughput,
  throughput,
  versus,
  withTimeout,
} from '../harness.js';

/**
 * @mcpkit/server-sequential-thinking against @modelcontextprotocol/server-sequential-thinking,
 * both run from their bins over stdio in this run. Thought logging is off for both
 * (DISABLE_THOUGHT_LOGGING=true): drawing a box on stderr per call would measure the pipe, not the server.
 */

/** Targets from the issue. "On par" allows 5% for run-to-run noise. */
const TARGET = { coldVsReference: 0.6, coldVsFloor: 1.5, latencyVsReference: 1.05, throughputVsReference: 0.95 };
const CONCURRENCY = 8;

const env = { DISABLE_THOUGHT_LOGGING: 'true' };

interface LoadFigures {
  latency: Stats;
  throughput: Throughput;
  rss: Rss | undefined;
}

function callThought(conn: StdioConnection, i: number) {
  return conn.client.callTool({
    name: 'sequentialthinking',
    arguments: {
      thought: `Step ${i}: weigh the options and note what changes if the assumption is wrong.`,
      nextThoughtNeeded: true,
      thoughtNumber: (i % 50) + 1,
      totalThoughts: 50,
    },
  });
}

/** Fails loudly if the server does not answer the way the reference does, so we never time errors. */
async function verify(conn: StdioConnection, label: string): Promise<void> {
  const res = await callThought(conn, 0);
  const sc = res.structuredContent as Record<string, unknown> | undefined;
  if (res.isError || sc?.thoughtNumber !== 1 || sc?.nextThoughtNeeded !== true || !Array.isArray(sc?.branches)) {
    throw new Error(`${label}: unexpected tools/call result ${JSON.stringify(res).slice(0, 400)}`);
  }
}

const suite: Suite = {
  name: 'sequential-thinking',
  description: 'ours vs @modelcontextprotocol/server-sequential-thinking (stdio, thought logging off)',
  async run(ctx: BenchContext) {
    const ours = nodeSpec('ours', binPath('@mcpkit/server-sequential-thinking', 'mcp-server-sequential-thinking'), [], env);
    const ref = nodeSpec(
      'reference',
      binPath('@modelcontextprotocol/server-sequential-thinking', 'mcp-server-sequential-thinking'),
      [],
      env,
    );
    const floor = floorSpec();
    ctx.print(`ours:      ${ours.args[0]}`);
    ctx.print(`reference: ${ref.args[0]}`);
    ctx.print('both with DISABLE_THOUGHT_LOGGING=true (the stderr box per call would dominate the figures)');

    // Cold start: spawn → initialize result, fresh process each run, interleaved.
    const runs = ctx.scale(30, 5);
    const [cOurs, cRef, cFloor] = await coldStarts([ours, ref, floor], runs, { warmup: ctx.scale(3, 1) });
    const cold = { ours: cOurs!.stats, reference: cRef!.stats, floor: cFloor!.stats };
    ctx.record('coldStart', cold);
    ctx.table({
      title: `cold start: spawn → initialize result (${runs} runs each, interleaved)`,
      headers: ['server', 'median', 'p90', 'min', 'max', 'median vs floor', 'median vs reference'],
      rows: (['ours', 'reference', 'floor'] as const).map((k) => [
        k,
        ms(cold[k].median),
        ms(cold[k].p90),
        ms(cold[k].min),
        ms(cold[k].max),
        ratio(cold[k].median, cold.floor.median),
        ratio(cold[k].median, cold.reference.median),
      ]),
      notes: ['floor = bare Node process answering initialize (src/floor.mjs)'],
    });
    ctx.check(
      `cold start ≤ ${TARGET.coldVsReference}× reference (median)`,
      cold.ours.median <= TARGET.coldVsReference * cold.reference.median,
      versus(cold.ours.median, cold.reference.median),
    );
    ctx.check(
      `cold start ≤ ${TARGET.coldVsFloor}× floor (median)`,
      cold.ours.median <= TARGET.coldVsFloor * cold.floor.median,
      versus(cold.ours.median, cold.floor.median),
    );

    // Warm load, both servers connected at once and measured in alternating blocks (ours, reference,
    // ours, ...) so a burst of machine noise does not land on one side only.
    const calls = ctx.scale(2000, 200);
    const total = ctx.scale(4000, 400);
    const blocks = ctx.scale(4, 1);
    await using oursConn = await connectStdio(ours);
    await using refConn = await connectStdio(ref);
    const sides = [
      { key: 'ours' as const, conn: oursConn, samples: [] as number[], seconds: 0, done: 0 },
      { key: 'reference' as const, conn: refConn, samples: [] as number[], seconds: 0, done: 0 },
    ];
    for (const side of sides) {
      await verify(side.conn, side.key);
      for (let w = 0; w < 200; w++) await callThought(side.conn, 0);
    }
    for (let b = 0; b < blocks; b++) {
      for (const side of sides) {
        const lat = await withTimeout(
          latency(() => callThought(side.conn, 0), calls / blocks, { warmup: 0 }),
          120_000,
          `${side.key} latency`,
        );
        side.samples.push(...lat.samples);
        let i = side.done;
        const thr = await withTimeout(
          throughput(() => callThought(side.conn, i++), total / blocks, CONCURRENCY),
          120_000,
          `${side.key} throughput`,
        );
        side.seconds += thr.seconds;
        side.done += thr.total;
      }
    }
    const load = {} as Record<'ours' | 'reference', LoadFigures>;
    for (const side of sides) {
      load[side.key] = {
        latency: stats(side.samples),
        throughput: { total: side.done, concurrency: CONCURRENCY, seconds: side.seconds, perSecond: side.done / side.seconds },
        rss: peakRss(side.conn.pid),
      };
    }
    ctx.record('load', load);
    ctx.table({
      title: `tools/call sequentialthinking over stdio (${calls} sequential calls; ${total} calls with ${CONCURRENCY} in flight; ${blocks} alternating blocks)`,
      headers: ['server', 'latency median', 'p90', 'p99', 'calls/s (8 in flight)', 'peak RSS'],
      rows: [
        ...(['ours', 'reference'] as const).map((k) => [
          k,
          ms(load[k].latency.median),
          ms(load[k].latency.p90),
          ms(load[k].latency.p99),
          load[k].throughput.perSecond.toFixed(0),
          mib(load[k].rss?.peak),
        ]),
        [
          'ours / reference',
          ratio(load.ours.latency.median, load.reference.latency.median),
          ratio(load.ours.latency.p90, load.reference.latency.p90),
          ratio(load.ours.latency.p99, load.reference.latency.p99),
          ratio(load.ours.throughput.perSecond, load.reference.throughput.perSecond),
          load.ours.rss && load.reference.rss ? ratio(load.ours.rss.peak, load.reference.rss.peak) : 'n/a',
        ],
      ],
      notes: [
        'latency = client-side round trip with the real SDK Client (includes the client’s own work and the pipe)',
        'peak RSS = VmHWM of the server process after the whole load (cold start not included)',
        'reference keeps every thought; ours keeps the last 1000 per session (--max-history)',
      ],
    });
    ctx.check(
      'call latency on par with reference (median ≤ 1.05×)',
      load.ours.latency.median <= TARGET.latencyVsReference * load.reference.latency.median,
      ratio(load.ours.latency.median, load.reference.latency.median),
    );
    ctx.check(
      'throughput on par with reference (≥ 0.95×)',
      load.ours.throughput.perSecond >= TARGET.throughputVsReference * load.reference.throughput.perSecond,
      ratio(load.ours.throughput.perSecond, load.reference.throughput.perSecond),
    );
  },
};

export default suite;
