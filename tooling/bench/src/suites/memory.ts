import {
  closeSync,
  copyFileSync,
  fdatasyncSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  type BenchContext,
  binPath,
  type Cell,
  callOk,
  coldStarts,
  connectStdio,
  floorSpec,
  latency,
  mib,
  ms,
  nodeSpec,
  peakRss,
  ratio,
  type SpawnSpec,
  type Stats,
  type StdioConnection,
  type Suite,
  stats,
  versus,
  withTimeout,
} from '../harness.js';
import { graphFile } from '../memoryGraph.js';

/**
 * @mcpkit/server-memory against @modelcontextprotocol/server-memory, both from their bins over
 * stdio in this run, each on its own copy of the same graph file (reference JSONL: N entities with
 * 3 observations each, 1 relation per entity). The reference re-reads the whole file on every call
 * and rewrites it on every mutation, so at 100k it gets few calls and a time budget per operation.
 *
 * Floors measured in the same run, on the same disk: an append + `fdatasync` of a record like the
 * one each mutation writes (what a durable write cannot go below), a `tools/call` round trip to a
 * bare Node process (`floor.mjs`: the client and the pipe), and, for the load, reading the file and
 * `JSON.parse` of each line (in this process, interleaved with our store loading the same file).
 */

/** Targets: issue 3 (vs the reference at 10k, absolute at 100k) and issue 11 (floors, cold start, load, RSS). */
const TARGET = {
  mutationVsRef10k: 50,
  openVsRef10k: 50,
  searchVsRef10k: 20,
  mutation100kMs: 5,
  search100kMs: 50,
  load100kMs: 1000,
  /** Every mutation ≤ this × the append+fdatasync floor of its record, at every size. */
  mutationVsDiskFloor: 2,
  /** Every mutation ≥ this × faster than the reference at 1k. */
  mutationVsRef1k: 10,
  /** `initialize` and `tools/list` with the file ≤ this × with an empty file. */
  coldVsEmpty: 1.2,
  /** Our load ≤ this × reading the file and parsing each line, at 100k. */
  loadVsParse100k: 1.5,
  peakRss100kMiB: 400,
};

const SIZES = (process.env.BENCH_MEMORY_SIZES ?? '1000,10000,100000').split(',').map(Number);

type Side = 'ours' | 'reference';

interface OpSpec {
  key: string;
  label: string;
  /** A mutation: the record it appends to the journal (for its disk floor). */
  record?: 'small' | 'batch';
  /** Calls for ours and for the reference at this size. */
  calls: (side: Side, n: number) => number;
  run: (conn: StdioConnection, i: number, side: Side, n: number) => Promise<unknown>;
  /** Untimed, after the op's calls on one side: undoes what they added, so every op runs on a graph of the nominal size. */
  cleanup?: (conn: StdioConnection, side: Side) => Promise<unknown>;
}

let unique = 0;
const newEntity = (tag: string) => ({ name: `new-${tag}-${unique++}`, entityType: 'bench', observations: ['a', 'b', 'c'] });
/** Names create_entities (1) made at the current size, for delete_entities (1) to remove. */
const createdOne: Record<Side, string[]> = { ours: [], reference: [] };
/** Names create_entities (100) made, removed (untimed) once its calls are measured. */
const createdBatch: Record<Side, string[]> = { ours: [], reference: [] };

/** Deletes `names` in a few calls (untimed cleanup). */
async function deleteAll(conn: StdioConnection, names: string[]): Promise<void> {
  while (names.length > 0) await call(conn, 'delete_entities', { entityNames: names.splice(0, 1000) });
}

/**
 * Untimed, before anything is measured on a server: `rounds` rounds of every kind of call, so
 * that what follows measures both ends in their steady state (compiled by the JIT) and the first
 * op measured is not the only one paying for the warm-up. Leaves the graph as it found it.
 */
async function warmUp(conn: StdioConnection, side: Side, n: number, rounds: number): Promise<void> {
  for (let r = 0; r < rounds; r++) {
    const name = `warm-${side}-${r}`;
    const other = `entity-${(r * 7919) % n}`;
    const relation = { from: name, to: other, relationType: 'warm' };
    await call(conn, 'create_entities', { entities: [{ name, entityType: 'bench', observations: ['a', 'b', 'c'] }] });
    await call(conn, 'add_observations', { observations: [{ entityName: other, contents: [`warm ${r}`] }] });
    await call(conn, 'delete_observations', { deletions: [{ entityName: other, observations: [`warm ${r}`] }] });
    await call(conn, 'create_relations', { relations: [relation] });
    await call(conn, 'delete_relations', { relations: [relation] });
    await call(conn, 'search_nodes', { query: `Observation ${r}-A` });
    await call(conn, 'open_nodes', { names: [other] });
    await call(conn, 'delete_entities', { entityNames: [name] });
  }
}

/** The reference re-reads (and on mutations rewrites) a ~29 MB file per call at 100k: allow it time. */
const call = (conn: StdioConnection, name: string, args: Record<string, unknown>) => callOk(conn, name, args, { timeoutMs: 600_000 });

function refCalls(n: number, small: number, mid: number, big: number): number {
  return n <= 1_000 ? small : n <= 10_000 ? mid : big;
}

function ops(ctx: BenchContext): OpSpec[] {
  const oursCalls = ctx.scale(300, 50);
  return [
    {
      key: 'create1',
      label: 'create_entities (1)',
      record: 'small',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(60, 10), ctx.scale(20, 5), ctx.scale(5, 2))),
      run: (c, i, s) => {
        const e = newEntity(`${s}1-${i}`);
        createdOne[s].push(e.name);
        return call(c, 'create_entities', { entities: [e] });
      },
    },
    {
      key: 'create100',
      label: 'create_entities (100)',
      record: 'batch',
      calls: (s, n) => (s === 'ours' ? ctx.scale(60, 10) : refCalls(n, ctx.scale(30, 5), ctx.scale(10, 3), ctx.scale(3, 2))),
      run: (c, i, s) => {
        const entities = Array.from({ length: 100 }, () => newEntity(`${s}100-${i}`));
        for (const e of entities) createdBatch[s].push(e.name);
        return call(c, 'create_entities', { entities });
      },
      // Left in, they would make every later op of the reference run on a graph of several times the size (at 1k).
      cleanup: (c, s) => deleteAll(c, createdBatch[s]),
    },
    {
      key: 'addObs',
      label: 'add_observations (1)',
      record: 'small',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(60, 10), ctx.scale(20, 5), ctx.scale(5, 2))),
      run: (c, i, s, n) =>
        call(c, 'add_observations', { observations: [{ entityName: `entity-${(i * 7919) % n}`, contents: [`added by ${s} ${i}`] }] }),
    },
    {
      key: 'createRel',
      label: 'create_relations (1)',
      record: 'small',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(30, 5), ctx.scale(10, 3), ctx.scale(3, 2))),
      run: (c, i, s, n) =>
        call(c, 'create_relations', {
          relations: [{ from: `entity-${(i * 7919) % n}`, to: `entity-${i % n}`, relationType: `knows-${s}-${i}` }],
        }),
    },
    {
      key: 'delObs',
      label: 'delete_observations (1)',
      record: 'small',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(30, 5), ctx.scale(10, 3), ctx.scale(3, 2))),
      // Removes what add_observations added (same entity and text for the same i).
      run: (c, i, s, n) =>
        call(c, 'delete_observations', { deletions: [{ entityName: `entity-${(i * 7919) % n}`, observations: [`added by ${s} ${i}`] }] }),
    },
    {
      key: 'delRel',
      label: 'delete_relations (1)',
      record: 'small',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(30, 5), ctx.scale(10, 3), ctx.scale(3, 2))),
      run: (c, i, s, n) =>
        call(c, 'delete_relations', {
          relations: [{ from: `entity-${(i * 7919) % n}`, to: `entity-${i % n}`, relationType: `knows-${s}-${i}` }],
        }),
    },
    {
      key: 'delEnt',
      label: 'delete_entities (1)',
      record: 'small',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(30, 5), ctx.scale(10, 3), ctx.scale(3, 2))),
      // One of the entities create_entities (1) made at this size, in order (as many calls as it made).
      run: (c, _i, s) => call(c, 'delete_entities', { entityNames: [createdOne[s].shift() ?? 'none'] }),
    },
    {
      key: 'searchHit',
      label: 'search_nodes (hit)',
      calls: (s, n) => (s === 'ours' ? ctx.scale(100, 20) : refCalls(n, ctx.scale(60, 10), ctx.scale(20, 5), ctx.scale(5, 2))),
      // `observation 123-a` matches one entity (plus 1230-a… only for larger ids): a typical narrow lookup.
      run: (c, i, _s, n) => call(c, 'search_nodes', { query: `Observation ${(i * 7919) % n}-A` }),
    },
    {
      key: 'searchMiss',
      label: 'search_nodes (miss)',
      calls: (s, n) => (s === 'ours' ? ctx.scale(100, 20) : refCalls(n, ctx.scale(60, 10), ctx.scale(20, 5), ctx.scale(5, 2))),
      run: (c, i) => call(c, 'search_nodes', { query: `no such thing ${i}` }),
    },
    {
      key: 'open',
      label: 'open_nodes (3 names)',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(60, 10), ctx.scale(20, 5), ctx.scale(5, 2))),
      run: (c, i, _s, n) => call(c, 'open_nodes', { names: [0, 1, 2].map((k) => `entity-${(i * 7919 + k * 101) % n}`) }),
    },
    {
      key: 'readPage',
      label: 'read_graph (limit 100)',
      calls: (s) => (s === 'ours' ? ctx.scale(100, 20) : 0),
      run: (c, i, _s, n) => {
        // Walk a few pages in: the cursor is opaque, so fetch page 1 then follow nextCursor from a cached one.
        return call(c, 'read_graph', { limit: 100, ...(pageCursor[n] && i % 2 ? { cursor: pageCursor[n] } : {}) });
      },
    },
    {
      key: 'readFull',
      label: 'read_graph (full)',
      // At 100k the answer is ~67 MB, over the SDK stdio client's 10 MB message limit: both servers' replies are refused.
      calls: (s, n) => (n >= 100_000 ? 0 : s === 'ours' ? ctx.scale(20, 5) : refCalls(n, ctx.scale(20, 5), ctx.scale(5, 2), 1)),
      run: (c) => call(c, 'read_graph', {}),
    },
  ];
}

/** A cursor deep into the graph per size, so paginated reads are not all page 1. */
const pageCursor: Record<number, string> = {};

/** Spawn → connected → first open_nodes answered: what a user waits for when the file exists; and the RSS then. */
async function firstAnswer(spec: SpawnSpec): Promise<{ ms: number; rss: number | undefined }> {
  const t0 = performance.now();
  const conn = await connectStdio(spec, { timeoutMs: 120_000 });
  try {
    await call(conn, 'open_nodes', { names: ['entity-1'] });
    return { ms: performance.now() - t0, rss: peakRss(conn.pid)?.current };
  } catch (error) {
    throw new Error(`${spec.label}: ${error instanceof Error ? error.message : String(error)}; stderr: ${conn.stderr().slice(-1500)}`);
  } finally {
    await conn.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Floors
// ---------------------------------------------------------------------------------------------

/** The journal record of one small mutation, and of create_entities with 100 entities, as our server writes them. */
const RECORDS = {
  small: `${JSON.stringify({ op: 'addObservations', observations: [{ entityName: 'entity-12345', contents: ['added by ours 123'] }] })}\n`,
  batch: `${JSON.stringify({
    op: 'createEntities',
    entities: Array.from({ length: 100 }, (_, i) => ({ name: `new-ours100-12-${i}`, entityType: 'bench', observations: ['a', 'b', 'c'] })),
  })}\n`,
};

interface Floors {
  /**
   * Per mutation (op key): append + fdatasync of its record (`RECORDS`) to a file in the bench folder
   * (the disk of the memory files), one sample right after each of our calls, so both see the same disk.
   */
  disk: Record<string, Stats>;
  /** The same in a tight loop, before the calls (the issue's figure: what the disk can do at best). */
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

async function measureFloors(ctx: BenchContext, dir: string): Promise<Floors> {
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
async function latencyWithFloor(
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

interface LoadFigures {
  parse: Stats;
  load: Stats;
  /** Heap held after the load (after a full GC), bytes: the graph and the store. */
  heap: number | undefined;
}

/** Our store loading `path` in this process (`openFileStore`, `load: 'wait'`), interleaved with the parse floor. */
async function loadVsParse(path: string, runs: number): Promise<LoadFigures> {
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

const suite: Suite = {
  name: 'memory',
  description: 'ours vs @modelcontextprotocol/server-memory (stdio; 1k/10k/100k entities, 3 observations and 1 relation each)',
  async run(ctx: BenchContext) {
    const oursBin = binPath('@mcpkit/server-memory', 'mcp-server-memory');
    const refBin = binPath('@modelcontextprotocol/server-memory', 'mcp-server-memory');
    ctx.print(`ours:      ${oursBin}`);
    ctx.print(`reference: ${refBin}`);
    const sizes = ctx.quick ? SIZES.slice(0, 2) : SIZES;
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-memory-'));
    const figures: Record<string, Record<string, Record<Side, Stats | undefined>>> = {};
    const floors: Record<string, Floors> = {};
    const handshakes: Record<string, Handshake> = {};
    const loads: Record<string, LoadFigures> = {};
    try {
      for (const n of sizes) {
        const text = graphFile(n);
        const files = { ours: join(dir, `ours-${n}.jsonl`), reference: join(dir, `ref-${n}.jsonl`) };
        const specs: Record<Side, SpawnSpec> = {
          ours: nodeSpec('ours', oursBin, ['--log-level', 'warn'], { MEMORY_FILE_PATH: files.ours }),
          reference: nodeSpec('reference', refBin, [], { MEMORY_FILE_PATH: files.reference }),
        };
        writeFileSync(files.ours, text);
        writeFileSync(files.reference, text);
        ctx.print(`\n--- ${n.toLocaleString('en')} entities (${(text.length / 1024 / 1024).toFixed(1)} MiB file)`);

        // Cold start → first answer with the file present, interleaved.
        const coldRuns = ctx.scale(n >= 100_000 ? 3 : 5, 2);
        const cold: Record<Side, number[]> = { ours: [], reference: [] };
        const loadedRss: Record<Side, number[]> = { ours: [], reference: [] };
        for (let r = 0; r < coldRuns + 1; r++) {
          for (const side of ['ours', 'reference'] as const) {
            const { ms: t, rss } = await withTimeout(firstAnswer(specs[side]), 180_000, `${side} first answer`);
            if (r === 0) continue;
            cold[side].push(t);
            if (rss !== undefined) loadedRss[side].push(rss);
          }
        }
        const sizeFig: Record<string, Record<Side, Stats | undefined>> = {
          cold: { ours: stats(cold.ours), reference: stats(cold.reference) },
          loadedRss: { ours: statsOrUndefined(loadedRss.ours), reference: statsOrUndefined(loadedRss.reference) },
        };

        // initialize and tools/list: ours with this file against ours with an empty file (and the reference with this file).
        const pristine = join(dir, `pristine-${n}.jsonl`);
        writeFileSync(pristine, text);
        const handshake = await coldHandshake(ctx, dir, oursBin, refBin, pristine, n);
        handshakes[String(n)] = handshake;

        // Our load in this process against reading + parsing the file, interleaved.
        const loadFig = await loadVsParse(pristine, ctx.scale(n >= 100_000 ? 5 : 7, 2));
        loads[String(n)] = loadFig;

        const floorsN = await measureFloors(ctx, dir);
        floors[String(n)] = floorsN;
        createdOne.ours.length = 0;
        createdOne.reference.length = 0;
        createdBatch.ours.length = 0;
        createdBatch.reference.length = 0;

        const conns: Record<Side, StdioConnection> = {
          ours: await connectStdio(specs.ours, { timeoutMs: 120_000 }),
          reference: await connectStdio(specs.reference, { timeoutMs: 120_000 }),
        };
        try {
          const deep = await call(conns.ours, 'read_graph', { limit: Math.floor(n / 2), namesOnly: true });
          const cursor = (deep.structuredContent as { nextCursor?: string } | undefined)?.nextCursor;
          if (cursor) pageCursor[n] = cursor;
          await warmUp(conns.ours, 'ours', n, ctx.scale(100, 20));
          // The reference pays a read (and on writes a rewrite) of the whole file per call: fewer rounds.
          await warmUp(conns.reference, 'reference', n, n <= 1_000 ? ctx.scale(5, 1) : 1);
          for (const op of ops(ctx)) {
            sizeFig[op.key] = { ours: undefined, reference: undefined };
            for (const side of ['ours', 'reference'] as const) {
              const calls = op.calls(side, n);
              if (calls === 0) continue;
              let i = 0;
              const warmup = side === 'ours' ? Math.min(20, Math.ceil(calls / 10)) : 1;
              const run = () => op.run(conns[side], i++, side, n);
              const measured =
                side === 'ours' && op.record
                  ? latencyWithFloor(run, calls, warmup, dir, RECORDS[op.record]).then(({ lat, floor }) => {
                      floorsN.disk[op.key] = floor;
                      return lat;
                    })
                  : latency(run, calls, { warmup });
              const lat = await withTimeout(measured, 240_000, `${side} ${op.label} at ${n}`).catch((error: unknown) => {
                throw new Error(
                  `${side} ${op.label} at ${n}: ${error instanceof Error ? error.message : String(error)}; stderr: ${conns[side].stderr().slice(-1500)}`,
                );
              });
              sizeFig[op.key]![side] = lat;
              await op.cleanup?.(conns[side], side);
            }
          }
          sizeFig.rss = {
            ours: rssStats(peakRss(conns.ours.pid)?.peak),
            reference: rssStats(peakRss(conns.reference.pid)?.peak),
          };
        } finally {
          await conns.ours.close();
          await conns.reference.close();
        }
        figures[String(n)] = sizeFig;

        const rows: Cell[][] = [['cold start → first open_nodes', ...cells(sizeFig.cold!)]];
        for (const op of ops(ctx)) rows.push([op.label, ...cells(sizeFig[op.key]!)]);
        for (const [label, key] of [
          ['RSS at the first answer', 'loadedRss'],
          ['peak RSS (end of the run)', 'rss'],
        ] as const) {
          const rss = sizeFig[key]!;
          rows.push([
            label,
            mib(rss.ours?.median),
            mib(rss.reference?.median),
            rss.ours && rss.reference ? ratio(rss.ours.median, rss.reference.median) : 'n/a',
            '',
          ]);
        }
        ctx.table({
          title: `memory @ ${n.toLocaleString('en')} entities: median per call (ours n / reference n)`,
          headers: ['operation', 'ours', 'reference', 'ours/ref', 'ref/ours (× faster)'],
          rows,
          notes: [
            'cold start: spawn → initialize → first open_nodes answered, with the file present (ours loads it in the background from the start; the reference on each call)',
            n >= 100_000
              ? "reference at 100k: 2-5 calls per operation (each re-reads ~29 MB, and rewrites it on mutations). read_graph (full) not run: its ~67 MB answer exceeds the SDK stdio client's 10 MB message limit, for both servers (what limit/namesOnly are for)"
              : 'reference: fewer calls than ours (each re-reads, and on mutations rewrites, the whole file)',
            'read_graph (limit 100) is ours only (the reference has no pagination)',
            `before the first op, untimed: ${ctx.scale(100, 20)} rounds of every kind of call on ours, ${n <= 1_000 ? ctx.scale(5, 1) : 1} on the reference (each round undoes itself); the entities create_entities (100) adds are deleted after its calls, so every op runs at ${n.toLocaleString('en')} entities`,
          ],
        });
        printFloors(ctx, n, sizeFig, floorsN, handshake, loadFig);
        // Sanity: our file still loads in the reference's parser after the run.
        const ourText = readFileSync(files.ours, 'utf8');
        for (const line of ourText.split('\n')) if (line.trim()) JSON.parse(line);
      }
      ctx.record('figures', figures);
      ctx.record('floors', floors);
      ctx.record('handshakes', handshakes);
      ctx.record('loads', loads);
      judge(ctx, figures);
      judgeFloors(ctx, figures, floors, handshakes, loads);
      await concurrency(ctx, dir, oursBin, refBin);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

function rssStats(bytes: number | undefined): Stats | undefined {
  return bytes === undefined ? undefined : stats([bytes]);
}

function statsOrUndefined(samples: number[]): Stats | undefined {
  return samples.length > 0 ? stats(samples) : undefined;
}

type HandshakeSide = 'empty' | 'file' | 'reference';

interface Handshake {
  /** Spawn → `initialize` answered; spawn → `tools/list` answered. */
  initialize: Record<HandshakeSide, Stats>;
  toolsList: Record<HandshakeSide, Stats>;
}

/**
 * Cold starts until `initialize` and until `tools/list` are answered (raw stdio, interleaved): ours
 * with an empty file, ours with the graph file, the reference with the graph file. Ours loads the
 * graph in the background, so the file's size should not matter.
 */
async function coldHandshake(ctx: BenchContext, dir: string, oursBin: string, refBin: string, file: string, n: number): Promise<Handshake> {
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

const MUTATIONS = ['create1', 'create100', 'addObs', 'createRel', 'delObs', 'delRel', 'delEnt'] as const;

function printFloors(
  ctx: BenchContext,
  n: number,
  sizeFig: Record<string, Record<Side, Stats | undefined>>,
  floors: Floors,
  handshake: Handshake,
  load: LoadFigures,
): void {
  const rows: Cell[][] = [];
  for (const op of ops(ctx)) {
    const ours = sizeFig[op.key]?.ours;
    if (!op.record || !ours) continue;
    const disk = floors.disk[op.key] ?? floors.tight[op.record];
    rows.push([
      op.label,
      ms(ours.median),
      ms(disk.median),
      ratio(ours.median, disk.median),
      ms(disk.median + floors.call.median),
      ratio(ours.median, disk.median + floors.call.median),
    ]);
  }
  ctx.table({
    title: `memory @ ${n.toLocaleString('en')}: mutations against the floors (medians)`,
    headers: ['mutation', 'ours', 'disk floor', 'ours/disk', 'disk + call floor', 'ours/(disk+call)'],
    rows,
    notes: [
      `disk floor: append + fdatasync of the record the mutation journals (${RECORDS.small.length} B for one item, ${RECORDS.batch.length} B for 100 entities), same disk, one sample right after each of our calls; in a tight loop before them: ${ms(floors.tight.small.median)} and ${ms(floors.tight.batch.median)}`,
      `call floor: tools/call round trip to a bare Node process over the SDK stdio client, ${ms(floors.call.median)}; it is in every figure of ours, not in the disk floor`,
    ],
  });
  const h = handshake;
  const row = (label: string, f: Record<HandshakeSide, Stats>): Cell[] => [
    label,
    ms(f.empty.median),
    ms(f.file.median),
    ratio(f.file.median, f.empty.median),
    ms(f.reference.median),
  ];
  ctx.table({
    title: `memory @ ${n.toLocaleString('en')}: answered before the graph is loaded; the load against the parse floor`,
    headers: ['cold start (median)', 'ours, empty file', 'ours, this file', 'file/empty', 'reference, this file'],
    rows: [row('spawn → initialize', h.initialize), row('spawn → tools/list', h.toolsList)],
    notes: [
      `load (in this process: openFileStore until the graph is loaded): ${ms(load.load.median)}; parse floor (read the file + JSON.parse of each line): ${ms(load.parse.median)}; load/floor ${ratio(load.load.median, load.parse.median)}`,
      `heap held by the loaded graph and store (after a full GC): ${mib(load.heap)}`,
    ],
  });
}

function judgeFloors(
  ctx: BenchContext,
  figures: Record<string, Record<string, Record<Side, Stats | undefined>>>,
  floors: Record<string, Floors>,
  handshakes: Record<string, Handshake>,
  loads: Record<string, LoadFigures>,
): void {
  const records = Object.fromEntries(ops(ctx).map((op) => [op.key, op.record])) as Record<string, 'small' | 'batch' | undefined>;
  for (const [size, fig] of Object.entries(figures)) {
    const n = Number(size);
    const label = n >= 1000 ? `${n / 1000}k` : size;
    const floor = floors[size]!;
    const measured = MUTATIONS.map((key) => ({
      key,
      ours: fig[key]?.ours,
      floor: floor.disk[key] ?? floor.tight[records[key] ?? 'small'],
    })).filter((m): m is { key: (typeof MUTATIONS)[number]; ours: Stats; floor: Stats } => m.ours !== undefined);
    if (measured.length > 0) {
      const over = measured.filter((m) => m.ours.median > TARGET.mutationVsDiskFloor * m.floor.median);
      const worst = measured.reduce((a, b) => (b.ours.median / b.floor.median > a.ours.median / a.floor.median ? b : a));
      ctx.check(
        `${label}: every mutation ≤ ${TARGET.mutationVsDiskFloor}× the append+fdatasync floor`,
        over.length === 0,
        `worst ${worst.key} ${versus(worst.ours.median, worst.floor.median)}${over.length > 1 ? `; over: ${over.map((m) => m.key).join(', ')}` : ''}; against disk + call floor (${ms(floor.call.median)}): ${ratio(worst.ours.median, worst.floor.median + floor.call.median)}`,
      );
    }
    const h = handshakes[size];
    if (h) {
      for (const [what, f] of [
        ['initialize', h.initialize],
        ['tools/list', h.toolsList],
      ] as const) {
        ctx.check(
          `${label}: ${what} with the file ≤ ${TARGET.coldVsEmpty}× with an empty file`,
          f.file.median <= TARGET.coldVsEmpty * f.empty.median,
          `${versus(f.file.median, f.empty.median)}; reference with the file ${ms(f.reference.median)}`,
        );
      }
    }
  }
  const at1k = figures['1000'];
  if (at1k) {
    const measured = MUTATIONS.flatMap((key) => {
      const f = at1k[key];
      return f?.ours && f.reference ? [{ key, ours: f.ours, reference: f.reference, speedup: f.reference.median / f.ours.median }] : [];
    });
    if (measured.length > 0) {
      const slowest = measured.reduce((a, b) => (b.speedup < a.speedup ? b : a));
      ctx.check(
        `1k: every mutation ≥ ${TARGET.mutationVsRef1k}× faster than the reference`,
        measured.every((m) => m.speedup >= TARGET.mutationVsRef1k),
        `slowest ${slowest.key} ${slowest.speedup.toFixed(1)}× (${ms(slowest.ours.median)} vs ${ms(slowest.reference.median)}); ${measured.map((m) => `${m.key} ${m.speedup.toFixed(0)}×`).join(', ')}`,
      );
    }
  }
  const load = loads['100000'];
  if (load) {
    ctx.check(
      `100k: load ≤ ${TARGET.loadVsParse100k}× the parse floor (read + JSON.parse of each line)`,
      load.load.median <= TARGET.loadVsParse100k * load.parse.median,
      `${versus(load.load.median, load.parse.median)}; heap held after the load ${mib(load.heap)}`,
    );
    const at100k = figures['100000'];
    const peak = at100k?.rss?.ours?.median;
    ctx.check(
      `100k: peak RSS ≤ ${TARGET.peakRss100kMiB} MiB`,
      peak !== undefined && peak <= TARGET.peakRss100kMiB * 1024 * 1024,
      `${mib(peak)} at the end of the run, ${mib(at100k?.loadedRss?.ours?.median)} at the first answer; reference ${mib(at100k?.rss?.reference?.median)}`,
    );
  }
}

function cells(f: Record<Side, Stats | undefined>): Cell[] {
  const o = f.ours;
  const r = f.reference;
  return [
    o ? `${ms(o.median)} (${o.n})` : '-',
    r ? `${ms(r.median)} (${r.n})` : 'n/a',
    o && r ? ratio(o.median, r.median) : '',
    o && r ? `${(r.median / o.median).toFixed(0)}×` : '',
  ];
}

function judge(ctx: BenchContext, figures: Record<string, Record<string, Record<Side, Stats | undefined>>>): void {
  const at = (n: number, key: string) => figures[String(n)]?.[key];
  const speedup = (n: number, key: string) => {
    const f = at(n, key);
    return f?.ours && f.reference ? f.reference.median / f.ours.median : Number.NaN;
  };
  for (const [key, target] of [
    ['create1', TARGET.mutationVsRef10k],
    ['addObs', TARGET.mutationVsRef10k],
    ['open', TARGET.openVsRef10k],
    ['searchHit', TARGET.searchVsRef10k],
    ['searchMiss', TARGET.searchVsRef10k],
  ] as const) {
    const s = speedup(10_000, key);
    const f = at(10_000, key);
    if (!f) continue;
    ctx.check(
      `10k: ${key} ≥ ${target}× faster than the reference`,
      s >= target,
      `${s.toFixed(0)}× (${ms(f.ours!.median)} vs ${ms(f.reference!.median)})`,
    );
  }
  if (figures['100000']) {
    for (const key of ['create1', 'addObs'] as const) {
      const o = at(100_000, key)!.ours!;
      ctx.check(`100k: ${key} median < ${TARGET.mutation100kMs} ms`, o.median < TARGET.mutation100kMs, ms(o.median));
    }
    for (const key of ['searchHit', 'searchMiss'] as const) {
      const o = at(100_000, key)!.ours!;
      ctx.check(`100k: ${key} median < ${TARGET.search100kMs} ms`, o.median < TARGET.search100kMs, ms(o.median));
    }
    const cold = at(100_000, 'cold')!.ours!;
    ctx.check(
      `100k: start with the file, load it and answer < ${TARGET.load100kMs} ms`,
      cold.median < TARGET.load100kMs,
      `${ms(cold.median)} (spawn + load + initialize + first open_nodes)`,
    );
  }
}

/** 4 processes × 250 concurrent create_entities on one file: how many entities survive. */
async function concurrency(ctx: BenchContext, dir: string, oursBin: string, refBin: string): Promise<void> {
  const PROCS = 4;
  const PER = 250;
  const runs = ctx.scale(3, 1);
  const rows: Cell[][] = [];
  const kept: Record<Side, number[]> = { ours: [], reference: [] };
  for (let run = 0; run < runs; run++) {
    for (const side of ['ours', 'reference'] as const) {
      const file = join(dir, `concurrent-${side}-${run}.jsonl`);
      writeFileSync(file, '');
      const spec = nodeSpec(side, side === 'ours' ? oursBin : refBin, side === 'ours' ? ['--log-level', 'error'] : [], {
        MEMORY_FILE_PATH: file,
      });
      const conns = await Promise.all(Array.from({ length: PROCS }, () => connectStdio(spec)));
      const t0 = performance.now();
      let errors = 0;
      try {
        await withTimeout(
          Promise.all(
            conns.flatMap((c, p) =>
              Array.from({ length: PER }, (_, i) =>
                c.client
                  .callTool({
                    name: 'create_entities',
                    arguments: { entities: [{ name: `p${p}-${i}`, entityType: 't', observations: ['o'] }] },
                  })
                  .then((r) => {
                    if (r.isError) errors++;
                  }),
              ),
            ),
          ),
          180_000,
          `${side} concurrent creates`,
        );
      } finally {
        for (const c of conns) await c.close();
      }
      const seconds = (performance.now() - t0) / 1000;
      const count = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() && JSON.parse(l).type === 'entity').length;
      kept[side].push(count);
      rows.push([`${side} (run ${run + 1})`, `${count} / ${PROCS * PER}`, errors, `${((PROCS * PER) / seconds).toFixed(0)} calls/s`]);
    }
  }
  ctx.table({
    title: `${PROCS} processes × ${PER} concurrent create_entities on one file`,
    headers: ['server', 'entities in the file afterwards', 'error results', 'throughput'],
    rows,
    notes: ['counted in the file after every process exited (what the next start loads)'],
  });
  ctx.record('concurrency', kept);
  ctx.check(
    `4×250 concurrent creates keep exactly 1000 entities, every run`,
    kept.ours.every((k) => k === PROCS * PER),
    `ours kept ${kept.ours.join(', ')}; reference kept ${kept.reference.join(', ')}`,
  );
}

export default suite;
