import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  type BenchContext,
  binPath,
  type Cell,
  connectStdio,
  latency,
  ms,
  nodeSpec,
  ratio,
  type SpawnSpec,
  type Stats,
  type StdioConnection,
  type Suite,
  stats,
  withTimeout,
} from '../harness.js';
import { databaseUrl, graphName, type Prepared, preparePostgres, serverFacts } from '../memoryPostgresLoad.js';
import { call, callsFor, GOAL, type OpStats, pgOps, type Side, sizeLabel, withP95 } from '../memoryPostgresOps.js';
import { pageFigures, reportPages } from '../memoryPostgresPages.js';
import { measureScale } from '../memoryPostgresScale.js';

/**
 * @mcpkit/server-memory with `--storage postgres` at 100k and 1M entities, beside the same server
 * on the file store and the reference server on its file, all from their bins over stdio with the
 * SDK client, in one run. A PostgreSQL of its own (the tests' `server.ts`), its data directory
 * removed at the end. Graphs: the memory suite's generator (`memoryGraph.ts`), written to a JSONL
 * file and loaded with the server's own `import` subcommand (the store's tables, 2,000-row
 * transactions), then `VACUUM ANALYZE` (what autovacuum does after a bulk load, done at once).
 *
 * Then paged reads at the largest size (`memoryPostgresPages.ts`), and writes from 1 and 3 replicas with pgbench and
 * `SELECT 1` as anchors at the smallest (`memoryPostgresScale.ts`).
 *
 *   pnpm bench -- --only memory-postgres [--quick]      (quick: 100k only, fewer calls)
 *   BENCH_MEMORY_PG_SIZES=100000,1000000 overrides the sizes.
 */

const SIZES = (process.env.BENCH_MEMORY_PG_SIZES ?? '100000,1000000').split(',').map(Number);
/** The reference re-reads the whole file per call: beyond this size it is skipped, with the reason printed. */
const REFERENCE_MAX = 100_000;

/** Spawn → initialize → first open_nodes answered (what a user waits for before the first tool result). */
async function firstAnswer(spec: SpawnSpec): Promise<number> {
  const t0 = performance.now();
  const conn = await connectStdio(spec, { timeoutMs: 120_000 });
  try {
    await call(conn, 'open_nodes', { names: ['entity-1'] });
    return performance.now() - t0;
  } catch (error) {
    throw new Error(`${spec.label}: ${error instanceof Error ? error.message : String(error)}; stderr: ${conn.stderr().slice(-1500)}`);
  } finally {
    await conn.close();
  }
}

interface StartCell {
  label: string;
  spec: SpawnSpec;
}

/** Interleaved cold starts (one warm-up round discarded): the graph's size should not show in PostgreSQL's. */
async function startUps(ctx: BenchContext, cells: StartCell[]): Promise<Record<string, Stats>> {
  const samples: Record<string, number[]> = Object.fromEntries(cells.map((c) => [c.label, []]));
  const runs = ctx.scale(9, 2);
  for (let r = 0; r < runs + 1; r++) {
    for (const c of cells) {
      const t = await withTimeout(firstAnswer(c.spec), 180_000, `${c.label} first answer`);
      if (r > 0) samples[c.label]!.push(t);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stats(v)]));
}

type SizeFigures = Record<string, Partial<Record<Side, OpStats>>>;

async function measureSide(ctx: BenchContext, side: Side, spec: SpawnSpec, n: number, into: SizeFigures): Promise<void> {
  const conn: StdioConnection = await connectStdio(spec, { timeoutMs: 120_000 });
  try {
    for (const op of pgOps()) {
      const { calls, warmup } = callsFor(ctx, side, op);
      let i = 0;
      const measured = latency(() => op.run(conn, i++, side, n), calls, { warmup });
      const lat = await withTimeout(measured, 240_000, `${side} ${op.label} at ${n}`).catch((error: unknown) => {
        throw new Error(
          `${side} ${op.label} at ${n}: ${error instanceof Error ? error.message : String(error)}; stderr: ${conn.stderr().slice(-1500)}`,
        );
      });
      const row = into[op.key] ?? {};
      row[side] = withP95(lat);
      into[op.key] = row;
    }
  } finally {
    await conn.close();
  }
}

const cell = (s: OpStats | undefined) => (s ? `${ms(s.median)} / ${ms(s.p95)} (${s.n})` : 'n/a');

function printSize(ctx: BenchContext, n: number, fig: SizeFigures, referenceNote: string): void {
  const rows: Cell[][] = pgOps().map((op) => {
    const f = fig[op.key] ?? {};
    return [
      op.label,
      cell(f.postgres),
      cell(f.file),
      cell(f.reference),
      f.postgres && f.file ? ratio(f.postgres.median, f.file.median) : '',
      f.postgres && f.reference ? ratio(f.postgres.median, f.reference.median) : '',
    ];
  });
  ctx.table({
    title: `memory on PostgreSQL @ ${n.toLocaleString('en')} entities: median / p95 per call (calls)`,
    headers: ['operation', 'postgres', 'file store', 'reference', 'pg/file', 'pg/ref'],
    rows,
    notes: [
      `hits: selective 1 entity; common ${Math.round(n / 365).toLocaleString('en')} entities and their ${Math.round((2 * n) / 365).toLocaleString('en')} relations (the whole answer, as the reference gives it)`,
      referenceNote,
    ],
  });
}

function judge(ctx: BenchContext, figures: Record<string, SizeFigures>, starts: Record<string, Stats>): void {
  for (const [size, fig] of Object.entries(figures)) {
    const label = sizeLabel(Number(size));
    const search = fig.searchSelective?.postgres;
    if (search) {
      ctx.check(
        `${label}: postgres search_nodes (selective) median ≤ ${GOAL.searchMs} ms`,
        search.median <= GOAL.searchMs,
        `${ms(search.median)} (p95 ${ms(search.p95)}); common (1 in 365, whole answer) ${ms(fig.searchCommon?.postgres?.median ?? Number.NaN)}`,
      );
    }
    for (const op of pgOps().filter((o) => o.write)) {
      const w = fig[op.key]?.postgres;
      if (!w) continue;
      ctx.check(
        `${label}: postgres ${op.label} median ≤ ${GOAL.writeMs} ms`,
        w.median <= GOAL.writeMs,
        `${ms(w.median)} (p95 ${ms(w.p95)})`,
      );
    }
    const empty = starts['postgres, empty graph'];
    const full = starts[`postgres, ${label}`];
    if (empty && full) {
      ctx.check(
        `${label}: postgres start-up (spawn → first open_nodes) ≤ ${GOAL.startVsEmpty}× the empty graph's`,
        full.median <= GOAL.startVsEmpty * empty.median,
        `${ratio(full.median, empty.median)} (${ms(full.median)} vs ${ms(empty.median)}); file store ${ms(starts[`file, ${label}`]?.median ?? Number.NaN)}`,
      );
    }
  }
}

const suite: Suite<Prepared> = {
  name: 'memory-postgres',
  description: 'server-memory --storage postgres at 100k/1M entities beside the file store and the reference (stdio, SDK client)',
  prepare: (ctx: BenchContext) =>
    preparePostgres(ctx, binPath('@mcpkit/server-memory', 'mcp-server-memory'), ctx.quick ? SIZES.filter((n) => n <= 100_000) : SIZES),
  async run(ctx: BenchContext, prepared: Prepared) {
    const oursBin = binPath('@mcpkit/server-memory', 'mcp-server-memory');
    const refBin = binPath('@modelcontextprotocol/server-memory', 'mcp-server-memory');
    const { pg, dir, loaded } = prepared;
    try {
      const url = pg.url;
      ctx.print(`ours: ${oursBin}\nreference: ${refBin}`);
      const facts = await serverFacts(url);
      const pgSpec = (n: number) =>
        nodeSpec('postgres', oursBin, ['--log-level', 'warn', '--storage', 'postgres', '--graph', graphName(n)], {
          MEMORY_DATABASE_URL: databaseUrl(url, n),
        });
      const fileSpec = (label: Side, bin: string, path: string) =>
        nodeSpec(label, bin, label === 'file' ? ['--log-level', 'warn'] : [], { MEMORY_FILE_PATH: path });

      // Start-up before any write, every graph as loaded.
      const emptyFile = join(dir, 'empty.jsonl');
      writeFileSync(emptyFile, '');
      const cells: { label: string; spec: SpawnSpec }[] = [
        { label: 'postgres, empty graph', spec: pgSpec(0) },
        { label: 'file, empty graph', spec: fileSpec('file', oursBin, emptyFile) },
      ];
      for (const l of loaded) {
        cells.push({ label: `postgres, ${sizeLabel(l.n)}`, spec: pgSpec(l.n) });
        cells.push({ label: `file, ${sizeLabel(l.n)}`, spec: fileSpec('file', oursBin, l.file) });
      }
      const starts = await startUps(ctx, cells);
      ctx.table({
        title: 'memory on PostgreSQL: start-up, spawn → initialize → first open_nodes answered (median)',
        headers: ['graph', 'postgres', 'file store', 'postgres / empty', 'file / empty'],
        rows: ['empty graph', ...loaded.map((l) => sizeLabel(l.n))].map((g) => {
          const p = starts[`postgres, ${g}`]!;
          const f = starts[`file, ${g}`]!;
          return [
            g,
            ms(p.median),
            ms(f.median),
            ratio(p.median, starts['postgres, empty graph']!.median),
            ratio(f.median, starts['file, empty graph']!.median),
          ];
        }),
        notes: [
          `${ctx.scale(9, 2)} runs per cell after one discarded round, cells interleaved; the file store loads its file before its first answer`,
        ],
      });

      const figures: Record<string, SizeFigures> = {};
      for (const l of loaded) {
        const fig: SizeFigures = {};
        ctx.print(`\n--- ${l.n.toLocaleString('en')} entities`);
        await measureSide(ctx, 'postgres', pgSpec(l.n), l.n, fig);
        const fileCopy = join(dir, `file-${l.n}.jsonl`);
        copyFileSync(l.file, fileCopy);
        await measureSide(ctx, 'file', fileSpec('file', oursBin, fileCopy), l.n, fig);
        let referenceNote: string;
        if (l.n <= REFERENCE_MAX) {
          const refCopy = join(dir, `ref-${l.n}.jsonl`);
          copyFileSync(l.file, refCopy);
          await measureSide(ctx, 'reference', fileSpec('reference', refBin, refCopy), l.n, fig);
          referenceNote = `reference: ${callsFor(ctx, 'reference').calls} calls per op (each re-reads the ${(l.bytes / 2 ** 20).toFixed(0)} MiB file, writes rewrite it)`;
        } else {
          const per = figures[String(REFERENCE_MAX)]?.searchSelective?.reference?.median;
          referenceNote = `reference skipped at ${sizeLabel(l.n)}: it re-reads the whole ${(l.bytes / 2 ** 20).toFixed(0)} MiB file on every call (and rewrites it on every write)${per ? `; at ${sizeLabel(REFERENCE_MAX)} a search took ${ms(per)}, so about ${((per * l.n) / REFERENCE_MAX / 1000).toFixed(1)} s per call here, and more per write` : ''}`;
        }
        figures[String(l.n)] = fig;
        printSize(ctx, l.n, fig, referenceNote);
      }

      const largest = loaded.at(-1)!;
      const pageConn = await connectStdio(pgSpec(largest.n), { timeoutMs: 120_000 });
      let pages: Awaited<ReturnType<typeof pageFigures>>;
      try {
        pages = await withTimeout(pageFigures(pageConn, largest.n, ctx.scale(100, 30)), 300_000, 'paged reads');
      } finally {
        await pageConn.close();
      }
      reportPages(ctx, largest.n, pages);
      const smallest = loaded[0]!;
      const scale = await measureScale(ctx, (r) => ({ ...pgSpec(smallest.n), label: `replica ${r}` }), databaseUrl(url, smallest.n));

      ctx.table({
        title: 'memory on PostgreSQL: the load',
        headers: ['graph', 'JSONL', '`import`', 'VACUUM ANALYZE + CHECKPOINT', 'entities/s'],
        rows: loaded.map((l) => [
          sizeLabel(l.n),
          `${(l.bytes / 2 ** 20).toFixed(0)} MiB`,
          `${(l.importMs / 1000).toFixed(1)} s`,
          `${(l.analyzeMs / 1000).toFixed(1)} s`,
          Math.round(l.n / (l.importMs / 1000)).toLocaleString('en'),
        ]),
        notes: [
          `PostgreSQL ${facts.version} (${facts.settings}); one database per size; after the load: ${loaded.map((l) => `${sizeLabel(l.n)}: memory_entities ${l.sizes.entitiesTable} (trigram index ${l.sizes.searchIndex}), memory_relations ${l.sizes.relationsTable}`).join('; ')}`,
          "the cluster is the tests' (server.ts) with fsync and synchronous_commit on, as in production: each write's figure includes its WAL flush, as the file store's includes its fdatasync; a CHECKPOINT after each load",
        ],
      });
      ctx.record('figures', figures);
      ctx.record('startUps', starts);
      ctx.record(
        'loads',
        loaded.map(({ file: _file, ...l }) => l),
      );
      ctx.record('database', facts);
      ctx.record('pages', { entities: largest.n, figures: pages });
      ctx.record('replicas', scale.replicas);
      ctx.record('anchors', scale.anchors);
      judge(ctx, figures, starts);
    } finally {
      await prepared.dispose();
    }
  },
};

export default suite;
