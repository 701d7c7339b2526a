/**
 * The `memory-postgres` suite's data: a PostgreSQL of its own (the tests' `server.ts`), a database per size, each
 * graph written as the memory suite's JSONL (`memoryGraph.ts`) and loaded with the server's own `import` subcommand,
 * then `VACUUM ANALYZE` and a `CHECKPOINT`. Done in the suite's `prepare` (a 1M import takes minutes on a busy machine).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type BenchContext, childEnv, withTimeout } from './harness.js';
import { graphFile } from './memoryGraph.js';
import { sizeLabel } from './memoryPostgresOps.js';
import { connectSql, type RunningPostgres, type SqlClient, startBenchPostgres } from './postgresCluster.js';

export const graphName = (n: number) => (n === 0 ? 'bench-empty' : `bench-${sizeLabel(n)}`);

/**
 * Each size in a database of its own (`bench_100k`, `bench_1m`, `bench_empty`), as a deployment of that size would
 * be: graphs sharing a database share its trigram index, so a small graph's search would also sift a big one's rows.
 */
const databaseName = (n: number) => (n === 0 ? 'bench_empty' : `bench_${sizeLabel(n).toLowerCase()}`);
export function databaseUrl(base: string, n: number): string {
  const url = new URL(base);
  url.pathname = `/${databaseName(n)}`;
  return url.toString();
}

const IMPORT_TIMEOUT_MS = 6 * 60_000;

/** `mcp-server-memory import <file> --graph <name>`: the path a user moving a file into the database takes. */
function importGraph(bin: string, url: string, file: string, graph: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin, 'import', file, '--graph', graph, '--log-level', 'warn'], {
    env: childEnv({ label: 'import', args: [], env: { MEMORY_DATABASE_URL: url } }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const done = new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`import of ${file} exited with ${code}: ${err.trim()}`)),
    );
  });
  return withTimeout(done, IMPORT_TIMEOUT_MS, `import into ${graph}`).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
}

interface Loaded {
  n: number;
  /** Its database. */
  url: string;
  sizes: PgSizes;
  /** The generator's JSONL (pristine; the file servers get copies). */
  file: string;
  bytes: number;
  importMs: number;
  analyzeMs: number;
}

interface PgSizes {
  entitiesTable: string;
  relationsTable: string;
  searchIndex: string;
}

async function loadGraphs(ctx: BenchContext, pg: RunningPostgres, bin: string, dir: string, sizes: number[]): Promise<Loaded[]> {
  const admin = await connectSql(pg.url);
  const loaded: Loaded[] = [];
  try {
    for (const n of [0, ...sizes]) await admin.query(`CREATE DATABASE ${databaseName(n)}`);
  } finally {
    await admin.end();
  }
  for (const n of sizes) {
    const url = databaseUrl(pg.url, n);
    const file = join(dir, `graph-${n}.jsonl`);
    writeFileSync(file, graphFile(n));
    const bytes = statSync(file).size;
    ctx.print(`  loading ${n.toLocaleString('en')} entities (${(bytes / 2 ** 20).toFixed(0)} MiB of JSONL) with \`import\`…`);
    const importMs = await importGraph(bin, url, file, graphName(n));
    const sql = await connectSql(url);
    try {
      const t0 = performance.now();
      await sql.query('VACUUM ANALYZE memory_entities');
      await sql.query('VACUUM ANALYZE memory_relations');
      // Flush the load's dirty pages now, so the checkpointer's I/O does not land in the timed writes.
      await sql.query('CHECKPOINT');
      const analyzeMs = performance.now() - t0;
      ctx.print(`  … imported in ${(importMs / 1000).toFixed(1)} s, VACUUM ANALYZE ${(analyzeMs / 1000).toFixed(1)} s`);
      loaded.push({ n, url, sizes: await tableSizes(sql), file, bytes, importMs, analyzeMs });
    } finally {
      await sql.end();
    }
  }
  return loaded;
}

async function tableSizes(sql: SqlClient): Promise<PgSizes> {
  const size = async (rel: string) =>
    (await sql.query<{ s: string }>('SELECT pg_size_pretty(pg_total_relation_size($1::regclass)) AS s', [rel])).rows[0]!.s;
  return {
    entitiesTable: await size('memory_entities'),
    relationsTable: await size('memory_relations'),
    searchIndex: await size('memory_entities_search'),
  };
}

export async function serverFacts(url: string): Promise<{ version: string; settings: string }> {
  const sql = await connectSql(url);
  try {
    const version = (await sql.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
    const settings = (
      await sql.query<{ name: string; setting: string }>(
        "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers') ORDER BY name",
      )
    ).rows
      .map((r) => `${r.name}=${r.setting}`)
      .join(', ');
    return { version, settings };
  } finally {
    await sql.end();
  }
}

export interface Prepared {
  pg: RunningPostgres;
  /** Temp folder of the JSONL files (the file servers get copies). */
  dir: string;
  loaded: Loaded[];
  /** Stops the cluster and removes `dir` (also on SIGINT/SIGTERM until then). */
  dispose(): Promise<void>;
}

/** Starts the cluster and loads every size; on failure, cleans up before throwing. */
export async function preparePostgres(ctx: BenchContext, bin: string, sizes: number[]): Promise<Prepared> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-memory-pg-'));
  let pg: RunningPostgres | undefined;
  let disposed: Promise<void> | undefined;
  const dispose = () =>
    (disposed ??= (async () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await pg?.stop();
      rmSync(dir, { recursive: true, force: true });
    })());
  // Interrupted (Ctrl-C, a CI time-out): stop the cluster and remove both directories before exiting.
  const onSignal = (signal: NodeJS.Signals) => {
    void dispose().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    pg = await startBenchPostgres();
    ctx.print(`PostgreSQL from ${pg.binaries.source} on ${pg.url}`);
    const loaded = await loadGraphs(ctx, pg, bin, dir, sizes);
    return { pg, dir, loaded, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
