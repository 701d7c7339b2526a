import { closeSync, copyFileSync, fdatasyncSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type BenchContext, callOk, coldStarts, connectStdio, floorSpec, latency, nodeSpec, type Stats, stats } from '../../harness.js';

/** The journal record of one small mutation, and of create_entities with 100 entities, as our server writes them. */
export const RECORDS = {
  small: `${JSON.stringify({ op: 'addObservations', observations: [{ entityName: 'entity-12345', contents: ['added by ours 123'] }] })}\n`,
  batch: `${JSON.stringify({
    op: 'createEntities',
    entities: Array.from({ length: 100 }, (_, i) => ({ name: `new-ours100-12-${i}`, entityType: 'bench', observations: ['a', 'b', 'c'] })),
  })}\n`,
};

export interface Floors {
  /**
   * Per mutation (op key): append + fdatasync of its record (`RECORDS`) to a file in the bench folder
   * (the disk of the memory files), one sample right after each of our calls, so both see the same disk.
   */
  disk: Record<string, Stats>;
  /** The same in a tight loop, before the calls (the figure: what the disk can do at best). */
  tight: Record<'small' | 'batch', Stats>;
  /** A tools/call round trip to floor.mjs (a bare Node process answering `echo`) over the SDK client. */
  call: Stats;
}

/** Append + fdatasync of `record` to an open file: one floor sample (ms). */
function appendSample(fd: number, record: string): number {
  const t0 = performance.now();
  writeSync(fd, record);
  fdatasyncSync(fd);
  return performance.now() - t0;
}

function tightFloor(dir: string, record: string, n: number): Stats {
  const path = join(dir, 'floor.wal');
  const fd = openSync(path, 'a');
  const samples: number[] = [];
  try {
    for (let i = 0; i < n + 20; i++) {
      const t = appendSample(fd, record);
      if (i >= 20) samples.push(t);
    }
  } finally {
    closeSync(fd);
    unlinkSync(path);
  }
  return stats(samples);
}

export async function measureFloors(ctx: BenchContext, dir: string): Promise<Floors> {
  const conn = await connectStdio(floorSpec());
  let callFloor: Stats;
  try {
    callFloor = await latency(() => callOk(conn, 'echo', { message: 'hi' }), ctx.scale(300, 50), { warmup: 30 });
  } finally {
    await conn.close();
  }
  const n = ctx.scale(300, 60);
  return { disk: {}, tight: { small: tightFloor(dir, RECORDS.small, n), batch: tightFloor(dir, RECORDS.batch, n) }, call: callFloor };
}

/**
 * `latency` for one of our mutations, with a disk-floor sample (append + fdatasync of `record`)
 * taken right after each call: the two figures see the same moments of the disk.
 */
export async function latencyWithFloor(
  fn: () => Promise<unknown>,
  n: number,
  warmup: number,
  dir: string,
  record: string,
): Promise<{ lat: Stats; floor: Stats }> {
  const path = join(dir, 'floor-interleaved.wal');
  const fd = openSync(path, 'a');
  const lat: number[] = [];
  const floor: number[] = [];
  try {
    for (let i = 0; i < warmup + n; i++) {
      const t0 = performance.now();
      await fn();
      const t = performance.now() - t0;
      const f = appendSample(fd, record);
      if (i < warmup) continue;
      lat.push(t);
      floor.push(f);
    }
  } finally {
    closeSync(fd);
    unlinkSync(path);
  }
  return { lat: stats(lat), floor: stats(floor) };
}

/** Reading the file and `JSON.parse` of each line: what any loader of this format pays. */
function parseFloor(path: string): number {
  const t0 = performance.now();
  const text = readFileSync(path, 'utf8');
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    JSON.parse(text.slice(start, nl));
    start = nl + 1;
  }
  if (start < text.length) JSON.parse(text.slice(start));
  return performance.now() - t0;
}

const gc = () => (globalThis as { gc?: () => void }).gc?.();

export interface LoadFigures {
  parse: Stats;
  load: Stats;
  /** Heap held after the load (after a full GC), bytes: the graph and the store. */
  heap: number | undefined;
}

/** Our store loading `path` in this process (`openFileStore`, `load: 'wait'`), interleaved with the parse floor. */
export async function loadVsParse(path: string, runs: number): Promise<LoadFigures> {
  const { openFileStore } = await import('@mcpkit/server-memory');
  const parse: number[] = [];
  const load: number[] = [];
  const heaps: number[] = [];
  for (let r = 0; r < runs + 1; r++) {
    gc();
    const p = parseFloor(path);
    gc();
    const t0 = performance.now();
    let store: Awaited<ReturnType<typeof openFileStore>> | undefined = await openFileStore({ path, compactDelayMs: 3_600_000 });
    const t = performance.now() - t0;
    gc();
    const loaded = process.memoryUsage().heapUsed;
    await store.close();
    store = undefined;
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    // What the store held: the heap with it loaded, less the heap once it is gone.
    const held = loaded - process.memoryUsage().heapUsed;
    if (r === 0) continue; // warm-up (page cache, code)
    parse.push(p);
    load.push(t);
    heaps.push(held);
  }
  return { parse: stats(parse), load: stats(load), heap: heaps.length > 0 ? stats(heaps).median : undefined };
}

export type HandshakeSide = 'empty' | 'file' | 'reference';

export interface Handshake {
  /** Spawn → `initialize` answered; spawn → `tools/list` answered. */
  initialize: Record<HandshakeSide, Stats>;
  toolsList: Record<HandshakeSide, Stats>;
}

/**
 * Cold starts until `initialize` and until `tools/list` are answered (raw stdio, interleaved): ours
 * with an empty file, ours with the graph file, the reference with the graph file. Ours loads the
 * graph in the background, so the file's size should not matter.
 */
export async function coldHandshake(
  ctx: BenchContext,
  dir: string,
  oursBin: string,
  refBin: string,
  file: string,
  n: number,
): Promise<Handshake> {
  const empty = join(dir, `empty-${n}.jsonl`);
  writeFileSync(empty, '');
  const refFile = join(dir, `handshake-ref-${n}.jsonl`);
  copyFileSync(file, refFile);
  const specs = [
    nodeSpec('empty', oursBin, ['--log-level', 'warn'], { MEMORY_FILE_PATH: empty }),
    nodeSpec('file', oursBin, ['--log-level', 'warn'], { MEMORY_FILE_PATH: file }),
    nodeSpec('reference', refBin, [], { MEMORY_FILE_PATH: refFile }),
  ];
  const runs = ctx.scale(n >= 100_000 ? 8 : 10, 3);
  const byLabel = (results: { label: string; stats: Stats }[]) =>
    Object.fromEntries(results.map((r) => [r.label, r.stats])) as Record<HandshakeSide, Stats>;
  return {
    initialize: byLabel(await coldStarts(specs, runs, { until: 'initialize' })),
    toolsList: byLabel(await coldStarts(specs, runs, { until: 'tools/list' })),
  };
}
