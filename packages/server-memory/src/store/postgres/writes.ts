/**
 * The six mutations as SQL, each run by `postgresStore.ts` inside one transaction on one client.
 * Every value travels as a bound parameter (lists as one JSON or array parameter); nothing is
 * spliced into SQL text. Each returns its result and whether the graph changed.
 */
import { ToolError } from '@mcpkit/protocol-core';
import type { PoolClient } from 'pg';
import type { Entity, ObservationAddition, ObservationDeletion, ObservationResult, Relation } from '../../graph.js';
import { checkStorable, hasNul } from './text.js';

export interface Written<T> {
  value: T;
  changed: boolean;
}

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
     ON CONFLICT (graph, name_key) DO NOTHING RETURNING name`,
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
     ON CONFLICT (graph, relation_key) DO NOTHING RETURNING from_name, to_name, relation_type`,
    values: [graph, JSON.stringify([...unique.values()])],
  });
  const inserted = new Set(rows.map((r) => relationKey({ from: r.from_name, to: r.to_name, relationType: r.relation_type })));
  const created = [...unique.values()].filter((r) => inserted.has(relationKey(r)));
  return { value: created, changed: created.length > 0 };
}

/** The observations of the named entities, locked until the transaction ends (in key order, so calls never deadlock). */
async function lockObservations(db: PoolClient, graph: string, names: readonly string[]): Promise<Map<string, string[]>> {
  const wanted = [...new Set(names.filter((n) => !hasNul(n)))];
  if (wanted.length === 0) return new Map();
  const { rows } = await db.query<{ name: string; observations: string[] }>({
    name: 'memory_lock_observations',
    text: `SELECT name, observations FROM memory_entities
      WHERE graph = $1 AND name_key = ANY (ARRAY(SELECT memory_key(n) FROM unnest($2::text[]) AS n))
      ORDER BY name_key FOR UPDATE`,
    values: [graph, wanted],
  });
  return new Map(rows.map((r) => [r.name, r.observations]));
}

async function writeObservations(db: PoolClient, graph: string, changed: Map<string, string[]>): Promise<void> {
  if (changed.size === 0) return;
  await db.query({
    name: 'memory_write_observations',
    text: `UPDATE memory_entities AS e SET observations = ARRAY(SELECT jsonb_array_elements_text(c.v->'observations'))
       FROM jsonb_array_elements($2::jsonb) AS c(v)
      WHERE e.graph = $1 AND e.name_key = memory_key(c.v->>'name')`,
    values: [graph, JSON.stringify([...changed].map(([name, observations]) => ({ name, observations })))],
  });
}

/** Adds what each entity lacks; an unknown entity fails the whole call before anything changes. */
export async function addObservations(
  db: PoolClient,
  graph: string,
  input: readonly ObservationAddition[],
): Promise<Written<ObservationResult[]>> {
  for (const [i, o] of input.entries()) {
    for (const [j, c] of o.contents.entries()) checkStorable(c, `observations[${i}].contents[${j}]`);
  }
  const current = await lockObservations(
    db,
    graph,
    input.map((o) => o.entityName),
  );
  for (const o of input) if (!current.has(o.entityName)) throw new ToolError(`Entity with name ${o.entityName} not found`);
  const changed = new Map<string, string[]>();
  const results: ObservationResult[] = input.map((o) => {
    const observations = changed.get(o.entityName) ?? current.get(o.entityName)!;
    const have = new Set(observations);
    const added = [...new Set(o.contents)].filter((c) => !have.has(c));
    if (added.length) changed.set(o.entityName, [...observations, ...added]);
    return { entityName: o.entityName, addedObservations: added };
  });
  await writeObservations(db, graph, changed);
  return { value: results, changed: changed.size > 0 };
}

/** Removes these observations; unknown entities and observations are ignored. */
export async function deleteObservations(db: PoolClient, graph: string, input: readonly ObservationDeletion[]): Promise<Written<void>> {
  const current = await lockObservations(
    db,
    graph,
    input.map((d) => d.entityName),
  );
  const changed = new Map<string, string[]>();
  for (const d of input) {
    const observations = changed.get(d.entityName) ?? current.get(d.entityName);
    if (!observations) continue;
    const drop = new Set(d.observations);
    const kept = observations.filter((o) => !drop.has(o));
    if (kept.length !== observations.length) changed.set(d.entityName, kept);
  }
  await writeObservations(db, graph, changed);
  return { value: undefined, changed: changed.size > 0 };
}

/** Removes the named entities and every relation with one of these names at either end. */
export async function deleteEntities(db: PoolClient, graph: string, names: readonly string[]): Promise<Written<void>> {
  const wanted = [...new Set(names.filter((n) => !hasNul(n)))];
  if (wanted.length === 0) return { value: undefined, changed: false };
  const keys = 'ARRAY(SELECT memory_key(n) FROM unnest($2::text[]) AS n)';
  const relations = await db.query(
    `DELETE FROM memory_relations WHERE graph = $1 AND (from_key = ANY (${keys}) OR to_key = ANY (${keys}))`,
    [graph, wanted],
  );
  const entities = await db.query(`DELETE FROM memory_entities WHERE graph = $1 AND name_key = ANY (${keys})`, [graph, wanted]);
  return { value: undefined, changed: (relations.rowCount ?? 0) + (entities.rowCount ?? 0) > 0 };
}

/** Removes the stored relations equal on all three fields to one of these. */
export async function deleteRelations(db: PoolClient, graph: string, input: readonly Relation[]): Promise<Written<void>> {
  const wanted = input.filter((r) => !hasNul(r.from) && !hasNul(r.to) && !hasNul(r.relationType));
  if (wanted.length === 0) return { value: undefined, changed: false };
  const { rowCount } = await db.query(
    `DELETE FROM memory_relations WHERE graph = $1 AND relation_key = ANY (ARRAY(
       SELECT memory_relation_key(r.v->>'from', r.v->>'to', r.v->>'relationType') FROM jsonb_array_elements($2::jsonb) AS r(v)))`,
    [graph, JSON.stringify(wanted)],
  );
  return { value: undefined, changed: (rowCount ?? 0) > 0 };
}
