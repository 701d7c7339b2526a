/**
 * The three reads as SQL, each run in one read-only REPEATABLE READ transaction (totals and page
 * from one snapshot). Search is the reference's case-insensitive substring test over name, type
 * and each observation: the trigram index (`memory_entities_search`) finds the candidates, and
 * each field is then tested on its own, so a match never spans two fields.
 */
import type { PoolClient } from 'pg';
import type { Entity, EntitySummary, GraphPage, PageRequest, Relation } from '../../graph.js';
import { seekSearch } from './searchSeek.js';
import { seekGraph, seeks } from './seek.js';
import { containsPattern, hasNul } from './text.js';

interface EntityRow {
  name: string;
  entity_type: string;
  observations?: string[];
}
interface RelationRow {
  from_name: string;
  to_name: string;
  relation_type: string;
}

const entityOf = (r: EntityRow): Entity | EntitySummary =>
  r.observations === undefined
    ? { name: r.name, entityType: r.entity_type }
    : { name: r.name, entityType: r.entity_type, observations: r.observations };
const relationOf = (r: RelationRow): Relation => ({ from: r.from_name, to: r.to_name, relationType: r.relation_type });
const mappers = { toEntity: entityOf, toRelation: relationOf };
const entityColumns = (page?: PageRequest) => (page?.namesOnly ? 'name, entity_type' : 'name, entity_type, observations');

/** `offset`/`limit` over entities first, then relations, as the in-process graph pages (`Graph.slice`). */
function bounds(page: PageRequest | undefined, totalEntities: number, totalRelations: number) {
  const offset = page?.offset ?? 0;
  const end = page?.limit === undefined ? Number.POSITIVE_INFINITY : offset + page.limit;
  return {
    entities: { from: Math.min(offset, totalEntities), to: Math.min(end, totalEntities) },
    relations: {
      from: Math.max(0, offset - totalEntities),
      to: Math.max(0, Math.min(end, totalEntities + totalRelations) - totalEntities),
    },
    nextOffset: end < totalEntities + totalRelations ? end : undefined,
  };
}

function result(
  entities: (Entity | EntitySummary)[],
  relations: Relation[],
  totalEntities: number,
  totalRelations: number,
  next?: number,
): GraphPage {
  const page: GraphPage = { entities, relations, totalEntities, totalRelations };
  if (next !== undefined) page.nextOffset = next;
  return page;
}

const sqlLimit = (r: { from: number; to: number }) => (Number.isFinite(r.to) ? String(r.to - r.from) : null);

/** The whole graph (insertion order), or one page of it; only the page's rows are fetched. */
export async function readGraph(db: PoolClient, graph: string, page?: PageRequest): Promise<GraphPage> {
  if (seeks(page)) return seekGraph(db, graph, page, mappers);
  const { rows } = await db.query<{ e: string; r: string }>(
    'SELECT (SELECT count(*) FROM memory_entities WHERE graph = $1) AS e, (SELECT count(*) FROM memory_relations WHERE graph = $1) AS r',
    [graph],
  );
  const totalEntities = Number(rows[0]!.e);
  const totalRelations = Number(rows[0]!.r);
  const b = bounds(page, totalEntities, totalRelations);
  const entities =
    b.entities.to > b.entities.from
      ? (
          await db.query<EntityRow>(`SELECT ${entityColumns(page)} FROM memory_entities WHERE graph = $1 ORDER BY seq OFFSET $2 LIMIT $3`, [
            graph,
            b.entities.from,
            sqlLimit(b.entities),
          ])
        ).rows.map(entityOf)
      : [];
  const relations =
    b.relations.to > b.relations.from
      ? (
          await db.query<RelationRow>(
            'SELECT from_name, to_name, relation_type FROM memory_relations WHERE graph = $1 ORDER BY seq OFFSET $2 LIMIT $3',
            [graph, b.relations.from, sqlLimit(b.relations)],
          )
        ).rows.map(relationOf)
      : [];
  return result(entities, relations, totalEntities, totalRelations, b.nextOffset);
}

/** The matched entities (in insertion order) with the relations touching them, cut to the page. */
async function matchedPage(db: PoolClient, graph: string, matched: EntityRow[], page?: PageRequest): Promise<GraphPage> {
  const relations =
    matched.length === 0
      ? []
      : (
          await db.query<RelationRow>({
            name: 'memory_relations_of',
            text: `SELECT from_name, to_name, relation_type FROM memory_relations
              WHERE graph = $1 AND (from_key = ANY (ARRAY(SELECT memory_key(n) FROM unnest($2::text[]) AS n))
                                 OR to_key = ANY (ARRAY(SELECT memory_key(n) FROM unnest($2::text[]) AS n)))
              ORDER BY seq`,
            values: [graph, matched.map((e) => e.name)],
          })
        ).rows;
  const b = bounds(page, matched.length, relations.length);
  return result(
    matched.slice(b.entities.from, b.entities.to).map(entityOf),
    relations.slice(b.relations.from, b.relations.to).map(relationOf),
    matched.length,
    relations.length,
    b.nextOffset,
  );
}

/**
 * Entities whose name, type or one observation contains `query`, case-insensitively, and the relations touching them.
 * `indexPattern` (from `searchPattern.ts`: the query's own `%query%`, or a part of it) finds the candidates through the
 * trigram index; the whole query then decides, field by field. A named statement: parsed once per connection.
 */
export async function searchNodes(
  db: PoolClient,
  graph: string,
  query: string,
  page?: PageRequest,
  indexPattern = containsPattern(query),
): Promise<GraphPage> {
  // Stored text never holds NUL, so a query with one matches nothing (as in the file store, where no field holds one).
  if (hasNul(query)) return matchedPage(db, graph, [], page);
  if (seeks(page)) return seekSearch(db, graph, { query: containsPattern(query), index: indexPattern }, page, mappers);
  const { rows } = await db.query<EntityRow>({
    name: page?.namesOnly ? 'memory_search_names' : 'memory_search',
    text: `SELECT ${entityColumns(page)} FROM memory_entities
      WHERE graph = $1 AND memory_search_text(name, entity_type, observations) ILIKE $3
        AND (name ILIKE $2 OR entity_type ILIKE $2 OR EXISTS (SELECT 1 FROM unnest(observations) AS o WHERE o ILIKE $2))
      ORDER BY seq`,
    values: [graph, containsPattern(query), indexPattern],
  });
  return matchedPage(db, graph, rows, page);
}

/** Entities with exactly these names (insertion order, each once) and the relations touching them. */
export async function openNodes(db: PoolClient, graph: string, names: readonly string[], page?: PageRequest): Promise<GraphPage> {
  const wanted = [...new Set(names.filter((n) => !hasNul(n)))];
  const rows =
    wanted.length === 0
      ? []
      : (
          await db.query<EntityRow>({
            name: page?.namesOnly ? 'memory_open_names' : 'memory_open',
            text: `SELECT ${entityColumns(page)} FROM memory_entities
              WHERE graph = $1 AND name_key = ANY (ARRAY(SELECT memory_key(n) FROM unnest($2::text[]) AS n)) ORDER BY seq`,
            values: [graph, wanted],
          })
        ).rows;
  return matchedPage(db, graph, rows, page);
}
