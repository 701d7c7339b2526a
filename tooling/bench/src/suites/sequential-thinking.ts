import {
  type BenchContext,
  binPath,
  coldStarts,
  connectStdio,
  floorSpec,
  interleavedLoad,
  ms,
  nodeSpec,
  peakRss,
  ratio,
  type StdioConnection,
  type Suite,
  versus,
} from '../harness.js';
import { checkVsReference, loadTable, type SideFigures } from '../vsReference.js';

/**
 * @mcpkit/server-sequential-thinking against @modelcontextprotocol/server-sequential-thinking,
 * both run from their bins over stdio in this run. Thought logging is off for both
 * (DISABLE_THOUGHT_LOGGING=true): drawing a box on stderr per call would measure the pipe, not the server.
 */

/**
 * Targets: cold start from the first issue; per call from issue 33 §2 (against the reference: latency and server CPU
 * per call ≤ 0.8×, calls/s ≥ 1.2× at 8 and at 64 in flight).
 */
const TARGET = { coldVsReference: 0.6, coldVsFloor: 1.5, latencyVsReference: 0.8, cpuVsReference: 0.8, throughputVsReference: 1.2 };
const CONCURRENCY = [8, 64] as const;

const env = { DISABLE_THOUGHT_LOGGING: 'true' };

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
    const counts = { calls: ctx.scale(2000, 200), total: ctx.scale(4000, 400), blocks: ctx.scale(4, 1) };
    await using oursConn = await connectStdio(ours);
    await using refConn = await connectStdio(ref);
    const sides = [
      { key: 'ours' as const, conn: oursConn },
      { key: 'reference' as const, conn: refConn },
    ];
    for (const side of sides) await verify(side.conn, side.key);
    const figures = await interleavedLoad(
      sides.map((s) => ({ label: s.key, call: (i: number) => callThought(s.conn, i), pid: s.conn.pid })),
      { ...counts, concurrency: CONCURRENCY, warmup: 200 },
    );
    const load = {} as Record<'ours' | 'reference', SideFigures>;
    for (const [i, side] of sides.entries()) load[side.key] = { ...figures[i]!, rss: peakRss(side.conn.pid) };
    ctx.record('load', load);
    loadTable(ctx, 'tools/call sequentialthinking over stdio', counts, [
      ['ours', load.ours],
      ['reference', load.reference],
    ]);
    ctx.print('  reference keeps every thought; ours keeps the last 1000 per session (--max-history)');
    checkVsReference(ctx, 'sequentialthinking', load.ours, load.reference, TARGET);
  },
};

export default suite;
