/**
 * `read_graph` pages that seek instead of skip: a page continues after the key of the previous
 * page's last item (`e:<seq>` in entities, `r:<seq>` in relations), through the `(graph, seq)`
 * indexes, so a page costs the same at any depth. Totals are counted once, on the first page of a
 * walk (the cursor carries them on): exactly up to `EXACT_UP_TO` rows, above that the planner's
 * estimate (never below `EXACT_UP_TO + 1`), so no page counts a big graph.
 */
import type { PoolClient } from 'pg';
import type { Entity, EntitySummary, GraphPage, PageRequest, Relation } from '../../graph.js';

export const EXACT_UP_TO = 1000;

interface Seq {
  seq: string;
}

/** Rows of `from` (a table and condition, `graph = $1`) counted up to the cap, then estimated. */
async function boundedCount(db: PoolClient, from: string, values: unknown[], order = ''): Promise<number> {
  // `order` (the page's own ORDER BY) lets the planner stop a scan in that order after the cap, as the page does.
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM ${from} ${order} LIMIT ${EXACT_UP_TO + 1}) AS c`,
    values,
  );
  const n = Number(rows[0]!.n);
  return n <= EXACT_UP_TO ? n : Math.max(EXACT_UP_TO + 1, await plannedRows(db, from, values));
}

/** The planner's estimate of the rows of `from`: statistics only, nothing read. */
export async function plannedRows(db: PoolClient, from: string, values: unknown[]): Promise<number> {
  const plan = await db.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(`EXPLAIN (FORMAT JSON) SELECT 1 FROM ${from}`, values);
  return Math.round(plan.rows[0]!['QUERY PLAN'][0].Plan['Plan Rows']);
}

async function graphTotals(db: PoolClient, graph: string): Promise<{ entities: number; relations: number }> {
  return {
    entities: await boundedCount(db, 'memory_entities WHERE graph = $1', [graph], 'ORDER BY seq'),
    relations: await boundedCount(db, 'memory_relations WHERE graph = $1', [graph], 'ORDER BY seq'),
  };
}

/** Whether this request pages by key: a limit, and either a key or the start (an offset-only cursor from before keys skips). */
export const seeks = (page: PageRequest | undefined): page is PageRequest & { limit: number } =>
  page?.limit !== undefined && (page.after !== undefined || (page.offset ?? 0) === 0);

type EntityRow = Seq & { name: string; entity_type: string; observations?: string[] };
type RelationRow = Seq & { from_name: string; to_name: string; relation_type: string };

/** What a keyset walk reads: its totals (first page only), and the rows after a key, in `seq` order. */
export interface SeekSource {
  totals(): Promise<{ entities: number; relations: number }>;
  /** Up to `limit` entities after `key`, with the columns `page.namesOnly` asks for. */
  entities(key: string, limit: number): Promise<EntityRow[]>;
  relations(key: string, limit: number): Promise<RelationRow[]>;
}

export interface RowMappers {
  toEntity: (r: { name: string; entity_type: string; observations?: string[] }) => Entity | EntitySummary;
  toRelation: (r: { from_name: string; to_name: string; relation_type: string }) => Relation;
}

/**
 * One page of a keyset walk: entities after the key (`e:<seq>`, from the start with no key), then, once they are
 * done, relations (`r:<seq>`); one row more than the page is read to know whether another page follows.
 */
export async function seekPage(source: SeekSource, page: PageRequest & { limit: number }, map: RowMappers): Promise<GraphPage> {
  const totals = page.totals ?? (await source.totals());
  const [phase, key] = (page.after ?? 'e:0').split(':') as ['e' | 'r', string];
  const { limit } = page;
  const done = page.offset ?? 0;
  const base = { totalEntities: totals.entities, totalRelations: totals.relations };
  const entityRows = phase === 'e' ? await source.entities(key, limit + 1) : [];
  if (entityRows.length > limit) {
    const shown = entityRows.slice(0, limit);
    return { entities: shown.map(map.toEntity), relations: [], ...base, nextOffset: done + limit, nextAfter: `e:${shown.at(-1)!.seq}` };
  }
  const rest = limit - entityRows.length;
  const relationKey = phase === 'r' ? key : '0';
  const relationRows = await source.relations(relationKey, rest + 1);
  const result: GraphPage = {
    entities: entityRows.map(map.toEntity),
    relations: relationRows.slice(0, rest).map(map.toRelation),
    ...base,
  };
  if (relationRows.length > rest) {
    result.nextOffset = done + limit;
    result.nextAfter = `r:${rest > 0 ? relationRows[rest - 1]!.seq : relationKey}`;
  }
  return result;
}

/** A `read_graph` page: the graph's rows after the key, through the `(graph, seq)` indexes. */
export function seekGraph(db: PoolClient, graph: string, page: PageRequest & { limit: number }, map: RowMappers): Promise<GraphPage> {
  const columns = page.namesOnly ? 'seq, name, entity_type' : 'seq, name, entity_type, observations';
  return seekPage(
    {
      totals: () => graphTotals(db, graph),
      entities: async (key, limit) =>
        (
          await db.query<EntityRow>(`SELECT ${columns} FROM memory_entities WHERE graph = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [
            graph,
            key,
            limit,
          ])
        ).rows,
      relations: async (key, limit) =>
        (
          await db.query<RelationRow>(
            'SELECT seq, from_name, to_name, relation_type FROM memory_relations WHERE graph = $1 AND seq > $2 ORDER BY seq LIMIT $3',
            [graph, key, limit],
          )
        ).rows,
    },
    page,
    map,
  );
}
