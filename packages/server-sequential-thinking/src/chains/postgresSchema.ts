/**
 * The thought chains' tables, created on start (and by the first call after a start with the database down). Three
 * replicas starting at once take an advisory lock, so the `IF NOT EXISTS` statements never race each other.
 */
import type pg from 'pg';

/** Any number of ours: the key of the advisory lock that serialises schema creation. */
const SCHEMA_LOCK = 0x5e9_7417;

const STATEMENTS = [
  `CREATE TABLE IF NOT EXISTS sequential_thinking_chains (
     handle text PRIMARY KEY,
     owner text NOT NULL,
     last_used bigint NOT NULL,
     next_seq bigint NOT NULL DEFAULT 0,
     dropped bigint NOT NULL DEFAULT 0
   )`,
  'CREATE INDEX IF NOT EXISTS sequential_thinking_chains_last_used ON sequential_thinking_chains (last_used)',
  `CREATE TABLE IF NOT EXISTS sequential_thinking_thoughts (
     handle text NOT NULL REFERENCES sequential_thinking_chains ON DELETE CASCADE,
     seq bigint NOT NULL,
     bytes integer NOT NULL,
     branch_id text,
     record jsonb NOT NULL,
     PRIMARY KEY (handle, seq)
   )`,
  `CREATE TABLE IF NOT EXISTS sequential_thinking_branches (
     handle text NOT NULL REFERENCES sequential_thinking_chains ON DELETE CASCADE,
     branch_id text NOT NULL,
     created_seq bigint NOT NULL,
     PRIMARY KEY (handle, branch_id)
   )`,
];

/** Creates the tables that are missing, in one transaction. */
export async function createSchema(client: pg.PoolClient): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    for (const statement of STATEMENTS) await client.query(statement);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
