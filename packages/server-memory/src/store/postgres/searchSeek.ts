/**
 * `search_nodes` pages that seek instead of fetching every match: entities matching the query after
 * the previous page's last key (`e:<seq>`), then the relations touching a match after `r:<seq>`.
 * Totals are counted once, on a walk's first page (exact up to `SEARCH_EXACT_UP_TO` matches, estimated
 * above); later pages repeat the cursor's totals.
 */
import type { PoolClient } from 'pg';
import type { Entity, EntitySummary, GraphPage, PageRequest, Relation } from '../../graph.js';
import { plannedRows } from './seek.js';

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

export async function seekSearch(
  db: PoolClient,
  graph: string,
  patterns: { query: string; index: string },
  page: PageRequest & { limit: number },
  toEntity: (r: { name: string; entity_type: string; observations?: string[] }) => Entity | EntitySummary,
  toRelation: (r: { from_name: string; to_name: string; relation_type: string }) => Relation,
): Promise<GraphPage> {
  const values = [graph, patterns.query, patterns.index];
  const totals = page.totals ?? (await searchTotals(db, values));
  const [phase, key] = (page.after ?? 'e:0').split(':') as ['e' | 'r', string];
  const { limit } = page;
  const done = page.offset ?? 0;
  const columns = page.namesOnly ? 'e.seq, e.name, e.entity_type' : 'e.seq, e.name, e.entity_type, e.observations';
  const base = { totalEntities: totals.entities, totalRelations: totals.relations };
  const entityRows =
    phase === 'e'
      ? (
          await db.query<{ seq: string; name: string; entity_type: string; observations?: string[] }>(
            `SELECT ${columns} FROM memory_entities e WHERE ${MATCH} AND e.seq > $4 ORDER BY e.seq LIMIT $5`,
            [...values, key, limit + 1],
          )
        ).rows
      : [];
  if (entityRows.length > limit) {
    const shown = entityRows.slice(0, limit);
    return { entities: shown.map(toEntity), relations: [], ...base, nextOffset: done + limit, nextAfter: `e:${shown.at(-1)!.seq}` };
  }
  const rest = limit - entityRows.length;
  const relationKey = phase === 'r' ? key : '0';
  const relationRows = (
    await db.query<{ seq: string; from_name: string; to_name: string; relation_type: string }>(
      `SELECT r.seq, r.from_name, r.to_name, r.relation_type FROM ${TOUCHING} AND r.seq > $4 ORDER BY r.seq LIMIT $5`,
      [...values, relationKey, rest + 1],
    )
  ).rows;
  const result: GraphPage = { entities: entityRows.map(toEntity), relations: relationRows.slice(0, rest).map(toRelation), ...base };
  if (relationRows.length > rest) {
    result.nextOffset = done + limit;
    result.nextAfter = `r:${rest > 0 ? relationRows[rest - 1]!.seq : relationKey}`;
  }
  return result;
}
