/** Test access to the run's PostgreSQL (`globalSetup.ts`): its URL, and stores on fresh graphs. */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openPostgresStore, type PostgresStoreOptions } from '../../src/store/postgres/postgresStore.js';
import type { StoreFixture } from '../storeSuite.js';

/** The URL of the run's PostgreSQL, or undefined when its tests are skipped (never under CI). */
export function postgresUrl(): string | undefined {
  const provided = inject('postgres');
  return 'url' in provided ? provided.url : undefined;
}

/** A graph name no other test uses. */
export const freshGraph = (): string => `test-${randomUUID()}`;

/** A store on a fresh graph of the run's database; `reopen` opens another store (its own pool) on that graph. */
export async function postgresFixture(options: Partial<PostgresStoreOptions> = {}): Promise<StoreFixture> {
  const url = postgresUrl();
  if (!url) throw new Error('no PostgreSQL for this run');
  const config = { url, graph: freshGraph(), poolSize: 4, ...options };
  const store = openPostgresStore(config);
  return { store, reopen: async () => openPostgresStore(config), [Symbol.asyncDispose]: () => store.close() };
}

/** A new, empty database on the run's cluster (its own schema and statistics), dropped on dispose. */
export async function freshDatabase(): Promise<{ url: string } & AsyncDisposable> {
  const url = postgresUrl();
  if (!url) throw new Error('no PostgreSQL for this run');
  const admin = new pg.Client(url);
  await admin.connect();
  const name = `memory_${randomUUID().replaceAll('-', '')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const dbUrl = new URL(url);
  dbUrl.pathname = `/${name}`;
  return {
    url: dbUrl.toString(),
    [Symbol.asyncDispose]: async () => {
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
