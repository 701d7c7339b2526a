import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BenchContext,
  binPath,
  type Cell,
  connectStdio,
  latency,
  mib,
  nodeSpec,
  peakRss,
  ratio,
  type SpawnSpec,
  type Stats,
  type StdioConnection,
  type Suite,
  stats,
  withTimeout,
} from '../harness.js';
import { graphFile } from '../memoryGraph.js';
import { concurrency } from './memory/concurrency.js';
import {
  coldHandshake,
  type Floors,
  type Handshake,
  type LoadFigures,
  latencyWithFloor,
  loadVsParse,
  measureFloors,
  RECORDS,
} from './memory/floors.js';
import { cells, judge, judgeFloors, printFloors } from './memory/judge.js';
import { call, createdBatch, createdOne, type Figures, firstAnswer, ops, pageCursor, type Side, warmUp } from './memory/ops.js';

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

const SIZES = (process.env.BENCH_MEMORY_SIZES ?? '1000,10000,100000').split(',').map(Number);

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
    const figures: Figures = {};
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

export default suite;
