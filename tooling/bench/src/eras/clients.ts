/**
 * The `eras` suite's many-clients load over Streamable HTTP (issue 33 §1): `clients` separate clients per cell
 * (2025-11-25: a session each; 2026-07-28: stateless requests), each making one `tools/call echo` at a time, all at
 * once, cell after cell in alternating blocks. Figures per cell: calls/s, and the server's CPU per call from /proc
 * over that cell's phases (one phase at a time, so the process serving several cells is measured for one only).
 */
import { performance } from 'node:perf_hooks';
import { connectEra, type EraClient, type Target } from '../eraClient.js';
import { type BenchContext, cpuTimeMs, type Era, withTimeout } from '../harness.js';
import { CELLS, emptyGrid, type Grid, type Side } from './model.js';

export interface ClientsGrids {
  clients: number;
  /** Calls per cell (split over the blocks, each client its share). */
  total: number;
  blocks: number;
  perSecond: Grid;
  /** Server CPU per call, µs (undefined where /proc is unavailable). */
  cpuPerCall: Grid;
}

interface Cell {
  side: Side;
  era: Era;
  label: string;
  pid: number;
  clients: EraClient[];
  seconds: number;
  done: number;
  cpuMs: number;
  cpuKnown: boolean;
}

/** `perClient` sequential calls on every client of `cell` at once; adds the wall time, the calls and the server's CPU. */
async function phase(cell: Cell, perClient: number, call: (c: EraClient) => Promise<void>, timeoutMs: number): Promise<void> {
  const before = cpuTimeMs(cell.pid);
  const t0 = performance.now();
  const run = Promise.all(
    cell.clients.map(async (c) => {
      for (let i = 0; i < perClient; i++) await call(c);
    }),
  );
  await withTimeout(run, timeoutMs, `${cell.label} with ${cell.clients.length} clients`);
  cell.seconds += (performance.now() - t0) / 1000;
  cell.done += perClient * cell.clients.length;
  const after = cpuTimeMs(cell.pid);
  if (before === undefined || after === undefined) cell.cpuKnown = false;
  else cell.cpuMs += after - before;
}

/**
 * Every cell of CELLS against `targets[side]` (an HTTP endpoint) served by process `pids[side]`, with `clients`
 * clients each. `call` makes one checked call; `verify` runs once per client before anything is timed.
 */
export async function clientsLoad(
  ctx: BenchContext,
  targets: Record<Side, Target>,
  pids: Record<Side, number>,
  options: { clients: number; call: (c: EraClient) => Promise<void> },
): Promise<ClientsGrids> {
  const { clients: count, call } = options;
  const cells: Cell[] = [];
  try {
    for (const { side, era } of CELLS) {
      const label = `${side} ${era} (http, ${count} clients)`;
      const cell: Cell = { side, era, label, pid: pids[side], clients: [], seconds: 0, done: 0, cpuMs: 0, cpuKnown: true };
      cells.push(cell);
      for (let i = 0; i < count; i++) cell.clients.push(await connectEra(era, targets[side], `${label} #${i}`));
    }
    const blocks = ctx.scale(4, 1);
    const total = ctx.scale(4096, 512);
    const perClient = Math.max(1, Math.ceil(total / blocks / count));
    for (const cell of cells) {
      await Promise.all(cell.clients.map((c) => call(c)));
      await phase(cell, Math.ceil(perClient / 4), call, 120_000);
      cell.seconds = 0;
      cell.done = 0;
      cell.cpuMs = 0;
    }
    for (let b = 0; b < blocks; b++) for (const cell of cells) await phase(cell, perClient, call, 120_000);
    const grids: ClientsGrids = {
      clients: count,
      total: perClient * count * blocks,
      blocks,
      perSecond: emptyGrid(),
      cpuPerCall: emptyGrid(),
    };
    for (const cell of cells) {
      grids.perSecond[cell.era][cell.side] = cell.done / cell.seconds;
      if (cell.cpuKnown) grids.cpuPerCall[cell.era][cell.side] = (cell.cpuMs / cell.done) * 1000;
    }
    return grids;
  } finally {
    for (const cell of cells) {
      for (const c of cell.clients) await withTimeout(c.close(), 10_000, `${cell.label} close`).catch(() => {});
    }
  }
}
