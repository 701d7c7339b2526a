/**
 * The `eras` suite's echo parts, on `mcp-server-everything --profile current` (ours and the
 * baseline's build) and the floors: cold start (spawn → the first answer: `initialize` in 2025,
 * `server/discover` in 2026) and `tools/call echo` latency and throughput over stdio and over
 * Streamable HTTP, with a client of each era.
 */

import { connectEra, type EraClient, type Target } from '../eraClient.js';
import {
  type BenchContext,
  coldStartCells,
  type Era,
  floorSpec,
  interleavedLoad,
  type LoadFigures,
  type SpawnSpec,
  withTimeout,
} from '../harness.js';
import { type HttpServerProcess, httpFloorBin, startHttpServer } from '../httpServer.js';
import { type ClientsGrids, clientsLoad } from './clients.js';
import { CELLS, emptyGrid, type Grid, type Side } from './model.js';

const PROFILE = ['--profile', 'current'];
const MESSAGE = 'The quick brown fox jumps over the lazy dog.';
const CONCURRENCY = 8;

/** The built entries (`dist/index.js`) of server-everything: this checkout's and the baseline's. */
export interface EverythingBins {
  ours: string;
  baseline: string;
}

const stdioSpecs = (bins: EverythingBins): Record<Side, SpawnSpec> => ({
  ours: { label: 'ours', args: [bins.ours, ...PROFILE] },
  baseline: { label: 'baseline', args: [bins.baseline, ...PROFILE] },
  floor: floorSpec(),
});

export interface ColdFigures {
  runs: number;
  median: Grid;
  p90: Grid;
}

/** Cold starts of every cell (ours and the floor in both eras, the baseline in 2025), interleaved round by round. */
export async function coldStart(ctx: BenchContext, bins: EverythingBins): Promise<ColdFigures> {
  const specs = stdioSpecs(bins);
  const runs = ctx.scale(30, 5);
  const cells = CELLS.map(({ side, era }) => ({
    spec: { ...specs[side], label: `${side} ${era}` },
    // The exit is never part of the figure; SIGTERM at once keeps a round short.
    options: { era, stop: 'kill' as const },
  }));
  const results = await coldStartCells(cells, runs, ctx.scale(3, 1));
  const figures: ColdFigures = { runs, median: emptyGrid(), p90: emptyGrid() };
  for (const [i, { side, era }] of CELLS.entries()) {
    figures.median[era][side] = results[i]!.stats.median;
    figures.p90[era][side] = results[i]!.stats.p90;
  }
  return figures;
}

async function echo(client: EraClient, label: string): Promise<void> {
  const res = await client.callTool('echo', { message: MESSAGE });
  if (res.isError) throw new Error(`${label}: echo failed: ${JSON.stringify(res.content).slice(0, 300)}`);
}

/** Fails loudly unless `echo` is listed and answers as it should, so the bench never times an error answer. */
async function verify(client: EraClient, label: string): Promise<void> {
  const tools = await client.listTools();
  if (!tools.includes('echo')) throw new Error(`${label}: no echo tool (has ${tools.join(', ')})`);
  const res = await client.callTool('echo', { message: MESSAGE });
  const text = (res.content as { text?: string }[] | undefined)?.[0]?.text;
  if (res.isError || text !== `Echo: ${MESSAGE}`) throw new Error(`${label}: unexpected echo result ${JSON.stringify(res).slice(0, 300)}`);
}

export interface LoadGrids {
  calls: number;
  total: number;
  blocks: number;
  latencyMedian: Grid;
  latencyP99: Grid;
  perSecond: Grid;
  /**
   * The server's CPU time per timed call, µs, from /proc (over HTTP one process serves both eras, measured over
   * each cell's own phases). Hardly moved by other jobs on the machine, unlike the wall-clock figures.
   */
  cpuPerCall: Grid;
  raw: Record<string, LoadFigures>;
}

/** Calls per cell: sequential (latency) and with 8 in flight (throughput). */
interface Counts {
  calls: number;
  total: number;
}

/** Echo latency and 8-in-flight throughput of every cell against `targets`, one client per cell, in alternating blocks. */
async function measure(
  ctx: BenchContext,
  transport: string,
  targets: Record<Side, Target>,
  counts: Counts,
  serverPid?: Record<Side, number>,
): Promise<LoadGrids> {
  const clients: { side: Side; era: Era; label: string; client: EraClient }[] = [];
  try {
    for (const { side, era } of CELLS) {
      const label = `${side} ${era} (${transport})`;
      clients.push({ side, era, label, client: await connectEra(era, targets[side], label) });
    }
    for (const c of clients) await verify(c.client, c.label);
    const { calls, total } = counts;
    const blocks = ctx.scale(4, 1);
    const figures = await interleavedLoad(
      clients.map((c) => {
        const pid = c.client.pid ?? serverPid?.[c.side];
        return { label: c.label, call: () => echo(c.client, c.label), ...(pid === undefined ? {} : { pid }) };
      }),
      { calls, total, blocks, concurrency: CONCURRENCY, warmup: ctx.scale(200, 50) },
    );
    const grids: LoadGrids = {
      calls,
      total,
      blocks,
      latencyMedian: emptyGrid(),
      latencyP99: emptyGrid(),
      perSecond: emptyGrid(),
      cpuPerCall: emptyGrid(),
      raw: {},
    };
    for (const [i, c] of clients.entries()) {
      const f = figures[i]!;
      grids.latencyMedian[c.era][c.side] = f.latency.median;
      grids.latencyP99[c.era][c.side] = f.latency.p99;
      grids.perSecond[c.era][c.side] = f.throughput?.perSecond;
      grids.cpuPerCall[c.era][c.side] = f.cpuPerCallUs;
      grids.raw[c.label] = f;
    }
    return grids;
  } finally {
    for (const c of clients) await withTimeout(c.client.close(), 10_000, `${c.label} close`).catch(() => {});
  }
}

/** Over stdio: each client spawns its own server process. */
export function stdioLoad(ctx: BenchContext, bins: EverythingBins): Promise<LoadGrids> {
  const specs = stdioSpecs(bins);
  const targets = { ours: { stdio: specs.ours }, baseline: { stdio: specs.baseline }, floor: { stdio: specs.floor } };
  return measure(ctx, 'stdio', targets, { calls: ctx.scale(2000, 200), total: ctx.scale(4000, 400) });
}

/** Clients at once in the HTTP many-clients load (issue 33 §1 measured 32). */
const HTTP_CLIENTS = 32;

/**
 * Over Streamable HTTP on 127.0.0.1: one server process per side (`--transport http --port 0`), both eras' clients
 * on it: one client per cell (latency, 8 in flight), then `HTTP_CLIENTS` clients per cell at once.
 */
export async function httpLoad(ctx: BenchContext, bins: EverythingBins): Promise<{ load: LoadGrids; clients: ClientsGrids }> {
  const servers: HttpServerProcess[] = [];
  try {
    for (const [bin, args] of [
      [bins.ours, PROFILE],
      [bins.baseline, PROFILE],
      [httpFloorBin, []],
    ] as const) {
      servers.push(await startHttpServer(bin, [...args], {}, { logLevel: 'info' }));
    }
    const [ours, baseline, floor] = servers.map((s) => s.endpoint) as [string, string, string];
    const [oursPid, baselinePid, floorPid] = servers.map((s) => s.pid) as [number, number, number];
    const pids = { ours: oursPid, baseline: baselinePid, floor: floorPid };
    ctx.print(`  HTTP endpoints: ours ${ours}, baseline ${baseline}, floor ${floor}`);
    // Half the stdio counts: a loopback HTTP round trip costs several times a pipe's, and the suite has 10 minutes.
    const targets = { ours: { http: ours }, baseline: { http: baseline }, floor: { http: floor } };
    const load = await measure(ctx, 'http', targets, { calls: ctx.scale(1000, 200), total: ctx.scale(2000, 400) }, pids);
    const clients = await clientsLoad(ctx, targets, pids, { clients: HTTP_CLIENTS, call: (c) => echo(c, 'http client') });
    return { load, clients };
  } finally {
    for (const s of servers) await s.stop();
  }
}
