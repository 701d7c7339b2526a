/** Test access to the run's PostgreSQL (`globalSetup.ts`): its URL, and fresh databases on it. */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** The URL of the run's PostgreSQL, or undefined when its tests are skipped (never under CI). */
export function postgresUrl(): string | undefined {
  const provided = inject('postgres');
  return 'url' in provided ? provided.url : undefined;
}

/** A new, empty database on the run's cluster, dropped on dispose. */
export async function freshDatabase(): Promise<{ url: string } & AsyncDisposable> {
  const url = postgresUrl();
  if (!url) throw new Error('no PostgreSQL for this run');
  const admin = new pg.Client(url);
  await admin.connect();
  const name = `thinking_${randomUUID().replaceAll('-', '')}`;
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
