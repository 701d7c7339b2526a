/**
 * Test access to the run's PostgreSQL (`postgresGlobalSetup`, `@mcpkit/test-utils/postgres-setup`): its URL, and
 * fresh databases on it. Only inside a vitest run (it reads `inject('postgres')`).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type {} from './globalSetup.js';

/** The URL of the run's PostgreSQL, or undefined when its tests are skipped (never under CI). */
export function postgresUrl(): string | undefined {
  const provided = inject('postgres');
  return 'url' in provided ? provided.url : undefined;
}

/** A new, empty database on the run's cluster (its own schema and statistics), named `<prefix>_<uuid>`, dropped on dispose. */
export async function freshDatabase(prefix = 'test'): Promise<{ url: string } & AsyncDisposable> {
  if (!/^[a-z][a-z0-9_]{0,20}$/.test(prefix)) throw new Error(`freshDatabase: prefix must be a short lower-case identifier, got ${prefix}`);
  const url = postgresUrl();
  if (!url) throw new Error('no PostgreSQL for this run');
  const admin = new pg.Client(url);
  await admin.connect();
  const name = `${prefix}_${randomUUID().replaceAll('-', '')}`;
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
