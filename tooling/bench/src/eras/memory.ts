/**
 * The `eras` suite's memory part: `search_nodes` and `add_observations` on a 10k-entity graph
 * (memoryGraph.ts), over stdio, for ours with a client of each era and the baseline's build with a
 * 2025 client. Every cell gets its own server process and its own copy of the file, so the
 * observations one adds never reach another's graph. Latency only (one call at a time), measured in
 * alternating blocks after an untimed warm-up.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectEra, type EraClient } from '../eraClient.js';
import { type BenchContext, type Era, interleavedLoad, type LoadFigures, withTimeout } from '../harness.js';
import { graphFile } from '../memoryGraph.js';
import { CELLS, emptyGrid, type Grid, type Side } from './model.js';

const MEMORY_ENTITIES = 10_000;

export interface MemoryBins {
  ours: string;
  baseline: string;
}

export interface MemoryGrids {
  entities: number;
  calls: number;
  blocks: number;
  /** Median latency per op. */
  search: Grid;
  add: Grid;
  raw: Record<string, LoadFigures>;
}

interface Conn {
  side: Side;
  era: Era;
  label: string;
  client: EraClient;
}

async function ok(conn: Conn, name: string, args: Record<string, unknown>): Promise<unknown> {
  const res = await conn.client.callTool(name, args, 600_000);
  if (res.isError) throw new Error(`${conn.label}: ${name} failed: ${JSON.stringify(res.content).slice(0, 300)}`);
  return res;
}

/** The entity call `i` touches: spread over the graph. */
const target = (i: number) => (i * 7919) % MEMORY_ENTITIES;
/** A search that finds entity-<target> (the servers match observations case-insensitively, as the reference does). */
const search = (c: Conn, i: number) => ok(c, 'search_nodes', { query: `Observation ${target(i)}-A` });
const add = (c: Conn, i: number) =>
  ok(c, 'add_observations', { observations: [{ entityName: `entity-${target(i)}`, contents: [`added by ${c.label} ${i}`] }] });

export async function memoryLoad(ctx: BenchContext, bins: MemoryBins): Promise<MemoryGrids> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-eras-'));
  const conns: Conn[] = [];
  try {
    const text = graphFile(MEMORY_ENTITIES);
    for (const { side, era } of CELLS) {
      if (side === 'floor') continue;
      const file = join(dir, `${side}-${era}.jsonl`);
      writeFileSync(file, text);
      const label = `${side} ${era}`;
      const spec = { label, args: [bins[side], '--log-level', 'warn'], env: { MEMORY_FILE_PATH: file } };
      conns.push({ side, era, label, client: await connectEra(era, { stdio: spec }, label) });
    }
    for (const c of conns) {
      const res = (await search(c, 1)) as { content?: { text?: string }[] };
      const name = `"entity-${target(1)}"`;
      if (!res.content?.[0]?.text?.includes(name)) throw new Error(`${c.label}: search_nodes did not find ${name} (graph not loaded?)`);
    }
    const calls = ctx.scale(600, 60);
    const blocks = ctx.scale(3, 1);
    const warmup = ctx.scale(50, 10);
    const grids: MemoryGrids = { entities: MEMORY_ENTITIES, calls, blocks, search: emptyGrid(), add: emptyGrid(), raw: {} };
    for (const [key, op] of [
      ['search', search],
      ['add', add],
    ] as const) {
      const figures = await interleavedLoad(
        conns.map((c) => ({ label: `${c.label} ${key}`, call: (i: number) => op(c, i) })),
        { calls, total: 0, blocks, concurrency: 1, warmup },
      );
      for (const [i, c] of conns.entries()) {
        grids[key][c.era][c.side] = figures[i]!.latency.median;
        grids.raw[`${key} ${c.label}`] = figures[i]!;
      }
    }
    return grids;
  } finally {
    for (const c of conns) await withTimeout(c.client.close(), 10_000, `${c.label} close`).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
