/**
 * The six mutations as SQL, each one statement, which `postgresStore.ts` runs on its own (autocommit:
 * one round trip, one transaction), and which makes its own commit durable (`DURABLE`). No statement
 * NOTIFYs: a NOTIFY holds one lock of the whole database from its commit until that commit is on disk,
 * so every notifying write would flush alone, one after the other, on every replica; the store sends the
 * change notice after the commit instead (`notifier.ts`). Every value travels as a bound parameter (lists
 * as one JSON or array parameter); nothing is spliced into SQL text. Each returns its result and whether
 * the graph changed.
 */
import { ToolError } from '@mcpkit/protocol-core';
import type { PoolClient } from 'pg';
import type { Entity, ObservationAddition, ObservationDeletion, ObservationResult, Relation } from '../../graph.js';
import { checkStorable, hasNul } from './text.js';

export interface Written<T> {
  value: T;
  changed: boolean;
}

/**
 * A column of each write that makes its commit wait for the disk on a database (or role) set to
 * `synchronous_commit = off` (a crash would lose commits already acknowledged): `set_config(…, true)` holds until
 * the statement's implicit transaction ends, after its commit record is flushed. Any other setting (`on`, `local`,
 * `remote_write`, `remote_apply`) is kept. Evaluated in the outer select (always) or, for an INSERT, per row added.
 */
const DURABLE = "CASE WHEN current_setting('synchronous_commit') = 'off' THEN set_config('synchronous_commit', 'on', true) END";

const relationKey = (r: Relation) => JSON.stringify([r.from, r.to, r.relationType]);

/** Adds the entities whose name is new in the graph; a name repeated in the batch is added once (first wins). */
export async function createEntities(db: PoolClient, graph: string, input: readonly Entity[]): Promise<Written<Entity[]>> {
  input.forEach((e, i) => {
    checkStorable(e.name, `entities[${i}].name`);
    checkStorable(e.entityType, `entities[${i}].entityType`);
    for (const [j, o] of e.observations.entries()) checkStorable(o, `entities[${i}].observations[${j}]`);
  });
  const unique = new Map<string, Entity>();
  for (const e of input)
    if (!unique.has(e.name)) unique.set(e.name, { name: e.name, entityType: e.entityType, observations: [...e.observations] });
  if (unique.size === 0) return { value: [], changed: false };
  const { rows } = await db.query<{ name: string }>({
    name: 'memory_create_entities',
    text: `INSERT INTO memory_entities (graph, name, entity_type, observations)
     SELECT $1, e.v->>'name', e.v->>'entityType', ARRAY(SELECT jsonb_array_elements_text(e.v->'observations'))
       FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(v, i) ORDER BY e.i
     ON CONFLICT (graph, name_key) DO NOTHING RETURNING name, ${DURABLE} AS durable`,
    values: [graph, JSON.stringify([...unique.values()])],
  });
  const inserted = new Set(rows.map((r) => r.name));
  const created = [...unique.values()].filter((e) => inserted.has(e.name));
  return { value: created, changed: created.length > 0 };
}

/** Adds the relations not stored yet (equal on all three fields); dangling endpoints are allowed. */
export async function createRelations(db: PoolClient, graph: string, input: readonly Relation[]): Promise<Written<Relation[]>> {
  input.forEach((r, i) => {
    checkStorable(r.from, `relations[${i}].from`);
    checkStorable(r.to, `relations[${i}].to`);
    checkStorable(r.relationType, `relations[${i}].relationType`);
  });
  const unique = new Map<string, Relation>();
  for (const r of input)
    if (!unique.has(relationKey(r))) unique.set(relationKey(r), { from: r.from, to: r.to, relationType: r.relationType });
  if (unique.size === 0) return { value: [], changed: false };
  const { rows } = await db.query<{ from_name: string; to_name: string; relation_type: string }>({
    name: 'memory_create_relations',
    text: `INSERT INTO memory_relations (graph, from_name, to_name, relation_type)
     SELECT $1, r.v->>'from', r.v->>'to', r.v->>'relationType'
       FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS r(v, i) ORDER BY r.i
     ON CONFLICT (graph, relation_key) DO NOTHING
     RETURNING from_name, to_name, relation_type, ${DURABLE} AS durable`,
    values: [graph, JSON.stringify([...unique.values()])],
  });
  const inserted = new Set(rows.map((r) => relationKey({ from: r.from_name, to: r.to_name, relationType: r.relation_type })));
  const created = [...unique.values()].filter((r) => inserted.has(relationKey(r)));
  return { value: created, changed: created.length > 0 };
}

/**
 * The rows of the entities named by the CTE `item` (a `name` column), locked in key order so that calls never
 * deadlock; under READ COMMITTED a row changed meanwhile is returned as it is now, once locked.
 */
const LOCKED = `locked AS (
       SELECT name, name_key, observations FROM memory_entities
        WHERE graph = $1 AND name_key = ANY (ARRAY(SELECT DISTINCT memory_key(item.name) FROM item))
        ORDER BY name_key FOR UPDATE)`;

/**
 * Adds what each entity lacks, in one statement: a content new to its entity is added once, by the first
 * item naming it (items in order, contents in order); an unknown entity fails the whole call, nothing changed.
 */
export async function addObservations(
  db: PoolClient,
  graph: string,
  input: readonly ObservationAddition[],
): Promise<Written<ObservationResult[]>> {
  for (const [i, o] of input.entries()) {
    for (const [j, c] of o.contents.entries()) checkStorable(c, `observations[${i}].contents[${j}]`);
  }
  if (input.length === 0) return { value: [], changed: false };
  // A name with NUL names no entity: the call fails, naming the first unknown one, so only look the others up.
  const apply = !input.some((o) => hasNul(o.entityName));
  const items = apply ? input : input.filter((o) => !hasNul(o.entityName));
  const { rows } = await db.query<{ found: string[]; added: Record<string, string[]> | null }>({
    name: 'memory_add_observations',
    text: `WITH item AS (
       SELECT o.i, o.v->>'entityName' AS name, o.v->'contents' AS contents
         FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS o(v, i)),
     ${LOCKED},
     added AS (
       SELECT DISTINCT ON (l.name, c.content) item.i, c.j, l.name, c.content
         FROM item JOIN locked AS l ON l.name = item.name
        CROSS JOIN LATERAL jsonb_array_elements_text(item.contents) WITH ORDINALITY AS c(content, j)
        WHERE c.content <> ALL (l.observations)
        ORDER BY l.name, c.content, item.i, c.j),
     upd AS (
       UPDATE memory_entities AS e
          SET observations = l.observations || ARRAY(SELECT a.content FROM added AS a WHERE a.name = l.name ORDER BY a.i, a.j)
         FROM locked AS l
        WHERE $3 AND NOT EXISTS (SELECT 1 FROM item WHERE NOT EXISTS (SELECT 1 FROM locked WHERE locked.name = item.name))
          AND e.graph = $1 AND e.name_key = l.name_key AND EXISTS (SELECT 1 FROM added AS a WHERE a.name = l.name)
       RETURNING 1)
     SELECT ARRAY(SELECT name FROM locked) AS found,
            (SELECT json_object_agg(g.i, g.contents)
               FROM (SELECT i, json_agg(content ORDER BY j) AS contents FROM added GROUP BY i) AS g) AS added,
            ${DURABLE} AS durable`,
    values: [graph, JSON.stringify(items.map((o) => ({ entityName: o.entityName, contents: o.contents }))), apply],
  });
  const found = new Set(rows[0]!.found);
  for (const o of input)
    if (hasNul(o.entityName) || !found.has(o.entityName)) throw new ToolError(`Entity with name ${o.entityName} not found`);
  const added = rows[0]!.added ?? {};
  const results = input.map((o, i) => ({ entityName: o.entityName, addedObservations: added[String(i + 1)] ?? [] }));
  return { value: results, changed: results.some((r) => r.addedObservations.length > 0) };
}

/** Removes these observations, in one statement; unknown entities and observations are ignored. */
export async function deleteObservations(db: PoolClient, graph: string, input: readonly ObservationDeletion[]): Promise<Written<void>> {
  // Text with NUL is never stored: such a name or observation matches nothing.
  const items = input
    .filter((d) => !hasNul(d.entityName))
    .map((d) => ({ entityName: d.entityName, observations: d.observations.filter((o) => !hasNul(o)) }))
    .filter((d) => d.observations.length > 0);
  if (items.length === 0) return { value: undefined, changed: false };
  const { rows } = await db.query<{ updated: number }>({
    name: 'memory_delete_observations',
    text: `WITH item AS (
       SELECT d.v->>'entityName' AS name, x.o AS observation
         FROM jsonb_array_elements($2::jsonb) AS d(v) CROSS JOIN LATERAL jsonb_array_elements_text(d.v->'observations') AS x(o)),
     ${LOCKED},
     upd AS (
       UPDATE memory_entities AS e
          SET observations = ARRAY(
                SELECT u.o FROM unnest(l.observations) WITH ORDINALITY AS u(o, k)
                 WHERE NOT EXISTS (SELECT 1 FROM item WHERE item.name = l.name AND item.observation = u.o) ORDER BY u.k)
         FROM locked AS l
        WHERE e.graph = $1 AND e.name_key = l.name_key
          AND EXISTS (SELECT 1 FROM item WHERE item.name = l.name AND item.observation = ANY (l.observations))
       RETURNING 1)
     SELECT (SELECT count(*) FROM upd)::int AS updated, ${DURABLE} AS durable`,
    values: [graph, JSON.stringify(items)],
  });
  return { value: undefined, changed: rows[0]!.updated > 0 };
}

/** Removes the named entities and every relation with one of these names at either end (one statement, one snapshot). */
export async function deleteEntities(db: PoolClient, graph: string, names: readonly string[]): Promise<Written<void>> {
  const wanted = [...new Set(names.filter((n) => !hasNul(n)))];
  if (wanted.length === 0) return { value: undefined, changed: false };
  const keys = 'ARRAY(SELECT memory_key(n) FROM unnest($2::text[]) AS n)';
  const { rows } = await db.query<{ deleted: number }>({
    name: 'memory_delete_entities',
    text: `WITH rel AS (
       DELETE FROM memory_relations WHERE graph = $1 AND (from_key = ANY (${keys}) OR to_key = ANY (${keys})) RETURNING 1),
     ent AS (DELETE FROM memory_entities WHERE graph = $1 AND name_key = ANY (${keys}) RETURNING 1)
     SELECT ((SELECT count(*) FROM rel) + (SELECT count(*) FROM ent))::int AS deleted, ${DURABLE} AS durable`,
    values: [graph, wanted],
  });
  return { value: undefined, changed: rows[0]!.deleted > 0 };
}

/** Removes the stored relations equal on all three fields to one of these. */
export async function deleteRelations(db: PoolClient, graph: string, input: readonly Relation[]): Promise<Written<void>> {
  const wanted = input.filter((r) => !hasNul(r.from) && !hasNul(r.to) && !hasNul(r.relationType));
  if (wanted.length === 0) return { value: undefined, changed: false };
  const { rows } = await db.query<{ deleted: number }>({
    name: 'memory_delete_relations',
    text: `WITH del AS (
       DELETE FROM memory_relations WHERE graph = $1 AND relation_key = ANY (ARRAY(
         SELECT memory_relation_key(r.v->>'from', r.v->>'to', r.v->>'relationType') FROM jsonb_array_elements($2::jsonb) AS r(v)))
       RETURNING 1)
     SELECT (SELECT count(*) FROM del)::int AS deleted, ${DURABLE} AS durable`,
    values: [graph, JSON.stringify(wanted)],
  });
  return { value: undefined, changed: rows[0]!.deleted > 0 };
}
