/**
 * `search_nodes` pages that seek instead of fetching every match: entities matching the query after
 * the previous page's last key (`e:<seq>`), then the relations touching a match after `r:<seq>`.
 * Totals as in `seek.ts`: counted once, on a walk's first page, exactly up to `EXACT_UP_TO` matches,
 * estimated by the planner above; later pages repeat the cursor's totals.
 */
import type { PoolClient } from 'pg';
import type { Entity, EntitySummary, GraphPage, PageRequest, Relation } from '../../graph.js';
import { boundedCount, EXACT_UP_TO } from './seek.js';

/** The search's test on entity `e` ($1 graph, $2 the query's pattern, $3 the index pattern), as `reads.ts` runs it. */
const MATCH = `e.graph = $1 AND memory_search_text(e.name, e.entity_type, e.observations) ILIKE $3
  AND (e.name ILIKE $2 OR e.entity_type ILIKE $2 OR EXISTS (SELECT 1 FROM unnest(e.observations) AS o WHERE o ILIKE $2))`;
const touching = (most = '') => `memory_relations r WHERE r.graph = $1
  AND (r.from_key = ANY (ARRAY(SELECT e.name_key FROM memory_entities e WHERE ${MATCH}${most}))
    OR r.to_key = ANY (ARRAY(SELECT e.name_key FROM memory_entities e WHERE ${MATCH}${most})))`;
const TOUCHING = touching();

/**
 * Exact up to `EXACT_UP_TO` matches. Above: the planner's estimate of the matches, and the relations touching
 * the first `EXACT_UP_TO` of them (seq order) scaled to that estimate.
 */
async function searchTotals(db: PoolClient, values: unknown[]): Promise<{ entities: number; relations: number }> {
  const entities = await boundedCount(db, `memory_entities e WHERE ${MATCH}`, values);
  if (entities <= EXACT_UP_TO) return { entities, relations: await boundedCount(db, TOUCHING, values) };
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${touching(` ORDER BY e.seq LIMIT ${EXACT_UP_TO}`)}`, values);
  const sample = Number(rows[0]!.n);
  return { entities, relations: Math.round((sample * entities) / EXACT_UP_TO) };
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
