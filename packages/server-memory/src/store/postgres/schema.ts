/**
 * The PostgreSQL schema, versioned: `memory_schema_version` holds the version applied, and each
 * start applies the missing steps of `MIGRATIONS` in one transaction under an advisory lock, so
 * replicas that start together migrate once and the others wait, then see the new version.
 */
import type { PoolClient } from 'pg';

/** `pg_advisory_xact_lock` key for migrations: "mcpkit-memory" as a 63-bit number. */
const MIGRATION_LOCK = 0x6d63706b69746d65n;

/**
 * Step `i` takes the schema from version `i` to `i + 1`. Append steps, never edit one that shipped.
 *
 * Keys are SHA-256 of the UTF-8 text (`memory_key`), so names of any length are unique and found by a
 * btree (a btree entry holds at most about 2.7 kB of text). The search text of an entity joins its
 * fields with newlines for one trigram index; a match is confirmed field by field (`reads.ts`).
 */
const MIGRATIONS: readonly string[] = [
  `CREATE EXTENSION IF NOT EXISTS pg_trgm;
   CREATE FUNCTION memory_key(text) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
     AS $$ SELECT sha256(convert_to($1, 'UTF8')) $$;
   CREATE FUNCTION memory_relation_key(text, text, text) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
     AS $$ SELECT sha256(convert_to(length($1)::text || ':' || $1 || length($2)::text || ':' || $2 || $3, 'UTF8')) $$;
   CREATE FUNCTION memory_search_text(text, text, text[]) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
     AS $$ SELECT $1 || E'\\n' || $2 || E'\\n' || array_to_string($3, E'\\n') $$;
   CREATE TABLE memory_entities (
     graph text NOT NULL,
     name text NOT NULL,
     entity_type text NOT NULL,
     observations text[] NOT NULL,
     seq bigint GENERATED ALWAYS AS IDENTITY,
     name_key bytea GENERATED ALWAYS AS (memory_key(name)) STORED,
     PRIMARY KEY (graph, name_key)
   );
   CREATE INDEX memory_entities_order ON memory_entities (graph, seq);
   CREATE INDEX memory_entities_search ON memory_entities USING gin (memory_search_text(name, entity_type, observations) gin_trgm_ops);
   CREATE TABLE memory_relations (
     graph text NOT NULL,
     from_name text NOT NULL,
     to_name text NOT NULL,
     relation_type text NOT NULL,
     seq bigint GENERATED ALWAYS AS IDENTITY,
     from_key bytea GENERATED ALWAYS AS (memory_key(from_name)) STORED,
     to_key bytea GENERATED ALWAYS AS (memory_key(to_name)) STORED,
     relation_key bytea GENERATED ALWAYS AS (memory_relation_key(from_name, to_name, relation_type)) STORED,
     PRIMARY KEY (graph, relation_key)
   );
   CREATE INDEX memory_relations_order ON memory_relations (graph, seq);
   CREATE INDEX memory_relations_from ON memory_relations (graph, from_key);
   CREATE INDEX memory_relations_to ON memory_relations (graph, to_key);`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the schema to `SCHEMA_VERSION`; refuses a database migrated by a newer version of this server. */
export async function migrate(client: PoolClient): Promise<{ from: number; to: number }> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
    await client.query('CREATE TABLE IF NOT EXISTS memory_schema_version (version integer NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM memory_schema_version');
    const from = rows[0]?.version ?? 0;
    if (from > SCHEMA_VERSION) {
      throw new Error(
        `the database holds memory schema version ${from}, newer than this server's ${SCHEMA_VERSION}: upgrade @mcpkit/server-memory`,
      );
    }
    for (let v = from; v < SCHEMA_VERSION; v++) await client.query(MIGRATIONS[v]!);
    if (rows.length === 0) await client.query('INSERT INTO memory_schema_version (version) VALUES ($1)', [SCHEMA_VERSION]);
    else if (from !== SCHEMA_VERSION) await client.query('UPDATE memory_schema_version SET version = $1', [SCHEMA_VERSION]);
    await client.query('COMMIT');
    return { from, to: SCHEMA_VERSION };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
