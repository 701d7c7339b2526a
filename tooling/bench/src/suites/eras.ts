/**
 * Issue 18, "Measured, not assumed": this checkout's servers (on SDK v2) side by side with the
 * baseline (an earlier build, by default b44c64b, the last one on SDK v1; see baseline.ts) and the
 * floors, with a client of each era:
 *
 * - 2025-11-25: the v1 SDK client (`initialize`, sessions);
 * - 2026-07-28: the v2 client pinned to 2026-07-28 (`server/discover`, stateless requests). The
 *   baseline does not speak it: its 2026 cells are "—".
 *
 * Figures: cold start (spawn → first answer), echo latency and 8-in-flight throughput over stdio and
 * Streamable HTTP (server-everything --profile current), memory's search_nodes/add_observations at
 * 10k entities, and HTTP with 32 clients at once. Goals: none more than 10 % worse than the baseline;
 * cold start ≤ 2× the floor (floor.mjs); HTTP calls/s, 8 in flight and 32 clients, ≥ 0.5× a bare node:http
 * handler's (httpFloor.mjs; issue 33 §1, both eras). A missed goal is a FAIL figure.
 */
import { type Baseline, materialiseBaseline } from '../baseline.js';
import { coldStart, httpLoad, type LoadGrids, stdioLoad } from '../eras/echo.js';
import { memoryLoad } from '../eras/memory.js';
import { checkVsBaseline, checkVsFloor, GOAL, GRID_HEADERS, gridRows, perSecond } from '../eras/model.js';
import { type BenchContext, ms, type Suite } from '../harness.js';
import { type OursSnapshot, snapshotOurs } from '../oursSnapshot.js';

const micros = (v: number) => `${v.toFixed(0)} µs`;

function loadTable(ctx: BenchContext, transport: string, grids: LoadGrids, baselineLabel: string, floorNote: string) {
  ctx.table({
    title: `tools/call echo over ${transport} (${grids.calls} sequential calls and ${grids.total} with 8 in flight per cell, ${grids.blocks} alternating blocks)`,
    headers: GRID_HEADERS(baselineLabel),
    rows: [
      ...gridRows('latency, median', grids.latencyMedian, ms),
      ...gridRows('latency, p99', grids.latencyP99, ms),
      ...gridRows('calls/s, 8 in flight', grids.perSecond, perSecond),
      ...gridRows('server CPU per call', grids.cpuPerCall, micros),
    ],
    notes: ['latency = round trip with the real client of that era (its own work included, equally on every side)', floorNote],
  });
}

async function measureAll(ctx: BenchContext, baseline: Baseline, ours: OursSnapshot) {
  const everything = { ours: ours.bin('server-everything'), baseline: baseline.bin('server-everything') };
  const memory = { ours: ours.bin('server-memory'), baseline: baseline.bin('server-memory') };
  const baselineLabel = `baseline ${baseline.sha.slice(0, 7)}`;
  ctx.print(`ours:     packages/{server-everything,server-memory}/dist, copied to ${ours.dir}`);
  ctx.print(`baseline: ${baseline.ref} = ${baseline.sha} (${baseline.built ? 'built in this run' : 'cached'}), ${baseline.dir}`);
  ctx.record('baseline', { ref: baseline.ref, sha: baseline.sha });

  const cold = await coldStart(ctx, everything);
  ctx.record('coldStart', cold);
  ctx.table({
    title: `cold start: spawn → first answer (${cold.runs} runs per cell, interleaved; mcp-server-everything --profile current)`,
    headers: GRID_HEADERS(baselineLabel),
    rows: [...gridRows('median', cold.median, ms), ...gridRows('p90', cold.p90, ms)],
    notes: [
      'first answer = the initialize result (2025-11-25) or the server/discover result (2026-07-28), the request written at spawn',
      'floor = src/floor.mjs, a bare Node process answering that request',
    ],
  });
  checkVsBaseline(ctx, 'cold start (median)', cold.median, 'lower', ms);
  checkVsFloor(ctx, 'cold start (median)', cold.median, 'lower', GOAL.coldVsFloor, ms);

  const stdio = await stdioLoad(ctx, everything);
  ctx.record('stdio', stdio);
  loadTable(ctx, 'stdio', stdio, baselineLabel, 'floor = src/floor.mjs answering echo: the client and the pipe, no server library');
  checkVsBaseline(ctx, 'stdio echo latency (median)', stdio.latencyMedian, 'lower', ms);
  checkVsBaseline(ctx, 'stdio echo calls/s (8 in flight)', stdio.perSecond, 'higher', perSecond);

  const { load: http, clients } = await httpLoad(ctx, everything);
  ctx.record('http', http);
  loadTable(
    ctx,
    'Streamable HTTP (127.0.0.1)',
    http,
    baselineLabel,
    'floor = src/httpFloor.mjs, bare node:http answering the same JSON (no sessions, no validation)',
  );
  checkVsBaseline(ctx, 'HTTP echo latency (median)', http.latencyMedian, 'lower', ms);
  checkVsBaseline(ctx, 'HTTP echo calls/s (8 in flight)', http.perSecond, 'higher', perSecond);
  checkVsFloor(ctx, 'HTTP echo calls/s (8 in flight)', http.perSecond, 'higher', GOAL.httpRpsVsFloor, perSecond);

  ctx.record('httpClients', clients);
  ctx.table({
    title: `tools/call echo over Streamable HTTP with ${clients.clients} clients at once (${clients.total} calls per cell, each client one at a time, ${clients.blocks} alternating blocks)`,
    headers: GRID_HEADERS(baselineLabel),
    rows: [
      ...gridRows(`calls/s, ${clients.clients} clients`, clients.perSecond, perSecond),
      ...gridRows('server CPU per call', clients.cpuPerCall, micros),
    ],
    notes: [
      '2025-11-25: a session per client; 2026-07-28: stateless requests (a fresh server per request, as the SDK serves them)',
      "server CPU per call = /proc CPU time of the server process over that cell's own phases ÷ its calls",
    ],
  });
  checkVsFloor(ctx, `HTTP echo calls/s (${clients.clients} clients)`, clients.perSecond, 'higher', GOAL.httpRpsVsFloor, perSecond);

  const mem = await memoryLoad(ctx, memory);
  ctx.record('memory', mem);
  ctx.table({
    title: `memory at ${mem.entities.toLocaleString('en')} entities over stdio (${mem.calls} sequential calls per op and cell, ${mem.blocks} alternating blocks)`,
    headers: GRID_HEADERS(baselineLabel),
    rows: [...gridRows('search_nodes, median', mem.search, ms), ...gridRows('add_observations, median', mem.add, ms)],
    notes: ['one server process and one copy of the graph file per cell; no floor here (the memory suite has the disk and call floors)'],
  });
  checkVsBaseline(ctx, 'memory search_nodes at 10k (median)', mem.search, 'lower', ms);
  checkVsBaseline(ctx, 'memory add_observations at 10k (median)', mem.add, 'lower', ms);
}

const suite: Suite<Baseline> = {
  name: 'eras',
  description:
    'SDK v2 build vs the baseline build (SDK v1) and the floors, with 2025-11-25 and 2026-07-28 clients (stdio, HTTP, memory 10k)',
  prepare: (ctx) => materialiseBaseline({ repoRoot: ctx.repoRoot, benchDir: ctx.benchDir, ref: ctx.baseline, print: ctx.print }),
  async run(ctx, baseline) {
    // A copy of this checkout's dist, so that a rebuild by someone else during the run cannot pull files from under a live server.
    const ours = snapshotOurs(ctx.repoRoot, ctx.benchDir, ['server-everything', 'server-memory']);
    try {
      await measureAll(ctx, baseline, ours);
    } finally {
      ours[Symbol.dispose]();
    }
  },
};

export default suite;
