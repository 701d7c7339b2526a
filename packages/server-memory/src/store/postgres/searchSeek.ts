/**
 * `search_nodes` pages that seek instead of fetching every match: entities matching the query after
 * the previous page's last key (`e:<seq>`), then the relations touching a match after `r:<seq>`.
 * Totals are counted once, on a walk's first page (exact up to `SEARCH_EXACT_UP_TO` matches, estimated
 * above); later pages repeat the cursor's totals.
 */
import type { PoolClient } from 'pg';
import type { GraphPage, PageRequest } from '../../graph.js';
import { plannedRows, type RowMappers, seekPage } from './seek.js';

/** The search's test on entity `e` ($1 graph, $2 the query's pattern, $3 the index pattern), as `reads.ts` runs it. */
const MATCH = `e.graph = $1 AND memory_search_text(e.name, e.entity_type, e.observations) ILIKE $3
  AND (e.name ILIKE $2 OR e.entity_type ILIKE $2 OR EXISTS (SELECT 1 FROM unnest(e.observations) AS o WHERE o ILIKE $2))`;
const TOUCHING = `memory_relations r WHERE r.graph = $1
  AND (r.from_key = ANY (ARRAY(SELECT e.name_key FROM memory_entities e WHERE ${MATCH}))
    OR r.to_key = ANY (ARRAY(SELECT e.name_key FROM memory_entities e WHERE ${MATCH})))`;

/** Matches counted exactly up to here: each costs the full match test, so fewer than `read_graph`'s cheap index count. */
export const SEARCH_EXACT_UP_TO = 100;

/**
 * One pass over at most `SEARCH_EXACT_UP_TO + 1` matches (seq order, as the pages) gives both totals: exact when the
 * matches fit, else the planner's estimate of the matches and the relations touching the first ones, scaled to it.
 */
async function searchTotals(db: PoolClient, values: unknown[]): Promise<{ entities: number; relations: number }> {
  const { rows } = await db.query<{ e: string; r: string }>(
    `WITH m AS MATERIALIZED (SELECT e.name_key FROM memory_entities e WHERE ${MATCH} ORDER BY e.seq LIMIT ${SEARCH_EXACT_UP_TO + 1}),
          k AS MATERIALIZED (SELECT array_agg(name_key) AS keys FROM (SELECT name_key FROM m LIMIT ${SEARCH_EXACT_UP_TO}) AS f)
     SELECT (SELECT count(*) FROM m) AS e,
            (SELECT count(*) FROM memory_relations r, k WHERE r.graph = $1 AND (r.from_key = ANY (k.keys) OR r.to_key = ANY (k.keys))) AS r`,
    values,
  );
  const [matched, touching] = [Number(rows[0]!.e), Number(rows[0]!.r)];
  if (matched <= SEARCH_EXACT_UP_TO) return { entities: matched, relations: touching };
  const entities = Math.max(SEARCH_EXACT_UP_TO + 1, await plannedRows(db, `memory_entities e WHERE ${MATCH}`, values));
  return { entities, relations: Math.round((touching * entities) / SEARCH_EXACT_UP_TO) };
}

/** A `search_nodes` page: the matches after the key, then the relations touching a match. */
export function seekSearch(
  db: PoolClient,
  graph: string,
  patterns: { query: string; index: string },
  page: PageRequest & { limit: number },
  map: RowMappers,
): Promise<GraphPage> {
  const values = [graph, patterns.query, patterns.index];
  const columns = page.namesOnly ? 'e.seq, e.name, e.entity_type' : 'e.seq, e.name, e.entity_type, e.observations';
  return seekPage(
    {
      totals: () => searchTotals(db, values),
      entities: async (key, limit) =>
        (
          await db.query<{ seq: string; name: string; entity_type: string; observations?: string[] }>(
            `SELECT ${columns} FROM memory_entities e WHERE ${MATCH} AND e.seq > $4 ORDER BY e.seq LIMIT $5`,
            [...values, key, limit],
          )
        ).rows,
      relations: async (key, limit) =>
        (
          await db.query<{ seq: string; from_name: string; to_name: string; relation_type: string }>(
            `SELECT r.seq, r.from_name, r.to_name, r.relation_type FROM ${TOUCHING} AND r.seq > $4 ORDER BY r.seq LIMIT $5`,
            [...values, key, limit],
          )
        ).rows,
    },
    page,
    map,
  );
}
