/**
 * The database side of `import` and `export`: one connection, the schema brought up to date as the
 * server does (`store/postgres/schema.ts`), bulk inserts that are safe to repeat, and the graph read
 * back in insertion order, a page at a time. Same tables and keys as the PostgreSQL store; every
 * value travels as a bound parameter.
 */
import pg from 'pg';
import type { Entity, Relation } from '../graph.js';
import { encodeNotice, graphChannel } from '../store/postgres/listener.js';
import { migrate } from '../store/postgres/schema.js';

export interface TransferDatabase {
  /** Runs `work` in one transaction (read-only and on one snapshot when `readOnly`). */
  transaction<T>(readOnly: boolean, work: (db: pg.PoolClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Connects to `url` and migrates the schema (creating it in an empty database). */
export async function openTransferDatabase(url: string, connectTimeoutMs = 10_000): Promise<TransferDatabase> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: 'mcp-server-memory',
  });
  // A connection that breaks while idle must not crash the process; the next query fails instead.
  pool.on('error', () => {});
  const client = await pool.connect().catch(async (error: unknown) => {
    await pool.end().catch(() => {});
    throw error;
  });
  client.on('error', () => {});
  let broken = false;
  try {
    await migrate(client);
  } catch (error) {
    client.release(true);
    await pool.end().catch(() => {});
    throw error;
  }
  return {
    async transaction(readOnly, work) {
      await client.query(readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
      try {
        const value = await work(client);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      }
    },
    async close() {
      client.release(broken);
      await pool.end().catch(() => {});
    },
  };
}

export interface EntityBatchResult {
  /** Entities that were not in the graph. */
  created: number;
  /** Entities in the graph already that lacked some of the observations (those were appended). */
  merged: number;
}

/**
 * Adds each entity whose name is new; an entity whose name is in the graph already keeps its type
 * and gets the observations it lacks appended, in file order (none: the row is not touched). So the
 * same batch twice changes nothing the second time. `entities` must hold each name once.
 */
export async function insertEntities(db: pg.PoolClient, graph: string, entities: readonly Entity[]): Promise<EntityBatchResult> {
  if (entities.length === 0) return { created: 0, merged: 0 };
  const { rows } = await db.query<{ created: boolean }>(
    `INSERT INTO memory_entities AS m (graph, name, entity_type, observations)
     SELECT $1, e.v->>'name', e.v->>'entityType', ARRAY(SELECT jsonb_array_elements_text(e.v->'observations'))
       FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(v, i) ORDER BY e.i
     ON CONFLICT (graph, name_key) DO UPDATE
       SET observations = m.observations || ARRAY(
         SELECT o FROM (SELECT o, min(k) AS k FROM unnest(EXCLUDED.observations) WITH ORDINALITY AS x(o, k) GROUP BY o) AS d
          WHERE o <> ALL (m.observations) ORDER BY k)
       WHERE NOT (EXCLUDED.observations <@ m.observations)
     RETURNING (xmax = 0) AS created`,
    [graph, JSON.stringify(entities)],
  );
  const created = rows.filter((r) => r.created).length;
  return { created, merged: rows.length - created };
}

/** Adds the relations not in the graph yet (equal on all three fields); returns how many were added. */
export async function insertRelations(db: pg.PoolClient, graph: string, relations: readonly Relation[]): Promise<number> {
  if (relations.length === 0) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO memory_relations (graph, from_name, to_name, relation_type)
     SELECT $1, r.v->>'from', r.v->>'to', r.v->>'relationType'
       FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS r(v, i) ORDER BY r.i
     ON CONFLICT (graph, relation_key) DO NOTHING`,
    [graph, JSON.stringify(relations)],
  );
  return rowCount ?? 0;
}

/**
 * Tells servers watching the graph (`listener.ts`) that it changed, as the store's writes do: the
 * notice is sent only if the caller's transaction commits.
 */
export async function notifyChange(db: pg.PoolClient, graph: string, origin: string, seq: number): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [graphChannel(graph), encodeNotice({ graph, origin, seq })]);
}

/** The graph's entities in insertion order, `pageSize` rows per query (keyset on `seq`), inside the caller's transaction. */
export async function* entityPages(db: pg.PoolClient, graph: string, pageSize: number): AsyncGenerator<Entity[]> {
  let after = '0';
  for (;;) {
    const { rows } = await db.query<{ seq: string; name: string; entity_type: string; observations: string[] }>(
      'SELECT seq, name, entity_type, observations FROM memory_entities WHERE graph = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [graph, after, pageSize],
    );
    if (rows.length === 0) return;
    after = rows.at(-1)!.seq;
    yield rows.map((r) => ({ name: r.name, entityType: r.entity_type, observations: r.observations }));
    if (rows.length < pageSize) return;
  }
}

/** The graph's relations in insertion order, as `entityPages`. */
export async function* relationPages(db: pg.PoolClient, graph: string, pageSize: number): AsyncGenerator<Relation[]> {
  let after = '0';
  for (;;) {
    const { rows } = await db.query<{ seq: string; from_name: string; to_name: string; relation_type: string }>(
      'SELECT seq, from_name, to_name, relation_type FROM memory_relations WHERE graph = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [graph, after, pageSize],
    );
    if (rows.length === 0) return;
    after = rows.at(-1)!.seq;
    yield rows.map((r) => ({ from: r.from_name, to: r.to_name, relationType: r.relation_type }));
    if (rows.length < pageSize) return;
  }
}

/** How many entities and relations the graph holds (inside the caller's transaction). */
export async function countGraph(db: pg.PoolClient, graph: string): Promise<{ entities: number; relations: number }> {
  const { rows } = await db.query<{ e: string; r: string }>(
    'SELECT (SELECT count(*) FROM memory_entities WHERE graph = $1) AS e, (SELECT count(*) FROM memory_relations WHERE graph = $1) AS r',
    [graph],
  );
  return { entities: Number(rows[0]!.e), relations: Number(rows[0]!.r) };
}
