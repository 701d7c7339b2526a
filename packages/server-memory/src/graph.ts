/**
 * The knowledge graph held in memory, with the indexes the reference lacks: entities by name,
 * relations by exact triple and by endpoint, and a lower-cased haystack per entity for search.
 *
 * Semantics follow the reference (`src/memory/index.ts`), with the deviations listed in the README:
 * intra-batch duplicates are dropped (first wins) instead of being stored twice. Everything a file
 * written by the reference can hold (two entities with one name, repeated relations) is kept as is.
 *
 * Every mutation returns the journal records that replay it (`GraphRecord`); applying the same
 * records to the same graph gives the same graph, and applying them again changes nothing.
 */
import { ToolError } from '@mcpkit/protocol-core';

export interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}

export interface Relation {
  from: string;
  to: string;
  relationType: string;
}

export interface KnowledgeGraph {
  entities: Entity[];
  relations: Relation[];
}

/** An entity without its observations, for `namesOnly` reads. */
export interface EntitySummary {
  name: string;
  entityType: string;
}

export interface ObservationAddition {
  entityName: string;
  contents: string[];
}

export interface ObservationResult {
  entityName: string;
  addedObservations: string[];
}

export interface ObservationDeletion {
  entityName: string;
  observations: string[];
}

/** Which slice of a result to return: `offset`/`limit` count entities first, then relations. */
export interface PageRequest {
  offset?: number;
  limit?: number;
  /** Entities as `{name, entityType}` only. */
  namesOnly?: boolean;
}

export interface GraphPage {
  entities: (Entity | EntitySummary)[];
  relations: Relation[];
  /** Entities and relations in the whole result, before `offset`/`limit`. */
  totalEntities: number;
  totalRelations: number;
  /** Offset of the next page when this one was cut by `limit`. */
  nextOffset?: number;
}

/** One journal record: the effect of a mutation, replayable. */
export type GraphRecord =
  | { op: 'createEntities'; entities: Entity[] }
  | { op: 'createRelations'; relations: Relation[] }
  | { op: 'addObservations'; observations: ObservationAddition[] }
  | { op: 'deleteEntities'; names: string[] }
  | { op: 'deleteObservations'; deletions: ObservationDeletion[] }
  | { op: 'deleteRelations'; relations: Relation[] };

/** What a mutation returns: its result, whether the graph changed, and the records that replay it. */
export interface Mutation<T> {
  value: T;
  changed: boolean;
  records: GraphRecord[];
}

interface EntityRec {
  seq: number;
  name: string;
  entityType: string;
  observations: string[];
  /** Lower-cased `name \0 entityType \0 obs…`, built on first search, dropped on change. */
  hay: string | undefined;
}

interface RelationRec {
  seq: number;
  from: string;
  to: string;
  relationType: string;
  key: string;
}

const SEP = '\u0000';
const relationKey = (r: Relation) => `${r.from}${SEP}${r.to}${SEP}${r.relationType}`;

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function removeFrom<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (!list) return;
  const i = list.indexOf(value);
  if (i >= 0) list.splice(i, 1);
  if (list.length === 0) map.delete(key);
}

function uniqueStrings(values: readonly string[]): string[] {
  return values.length < 2 ? [...values] : [...new Set(values)];
}

/** A mutation that applied `applied` items: it changed the graph, and `record` replays it, only if there was at least one. */
function mutation<T>(value: T, applied: readonly unknown[], record: GraphRecord): Mutation<T> {
  return applied.length > 0 ? { value, changed: true, records: [record] } : { value, changed: false, records: [] };
}

export class Graph {
  private nextSeq = 1;
  /** Insertion order is file order: records are never re-inserted, so order equals `seq` order. */
  private readonly entities = new Set<EntityRec>();
  /** The first entity of each name, and (rare: only files written by the reference) later ones. */
  private readonly byName = new Map<string, EntityRec>();
  private readonly moreByName = new Map<string, EntityRec[]>();
  private readonly relations = new Set<RelationRec>();
  private readonly byKey = new Map<string, RelationRec>();
  private readonly moreByKey = new Map<string, RelationRec[]>();
  /** Relations by `from` and by `to` (a self-relation once). */
  private readonly byEndpoint = new Map<string, RelationRec[]>();

  // -------------------------------------------------------------------------------------------
  // Loading (file order, duplicates kept) and serialising
  // -------------------------------------------------------------------------------------------

  /** Appends an entity as loaded from a file, even if its name exists (a reference file may hold both). */
  loadEntity(e: Entity): void {
    const rec: EntityRec = { seq: this.nextSeq++, name: e.name, entityType: e.entityType, observations: e.observations, hay: undefined };
    this.entities.add(rec);
    if (this.byName.has(rec.name)) pushTo(this.moreByName, rec.name, rec);
    else this.byName.set(rec.name, rec);
  }

  /** Appends a relation as loaded from a file, even if an equal one exists. */
  loadRelation(r: Relation): void {
    this.addRelation(r);
  }

  /** Every entity then every relation, in file order (the shape of the reference's file). */
  *entityList(): IterableIterator<Entity> {
    for (const e of this.entities) yield { name: e.name, entityType: e.entityType, observations: e.observations };
  }

  *relationList(): IterableIterator<Relation> {
    for (const r of this.relations) yield { from: r.from, to: r.to, relationType: r.relationType };
  }

  // -------------------------------------------------------------------------------------------
  // Mutations (reference semantics; see the module comment for the deviations)
  // -------------------------------------------------------------------------------------------

  /** Adds the entities whose name is new; a name repeated in the batch is added once (first wins). */
  createEntities(input: readonly Entity[]): Mutation<Entity[]> {
    const created: Entity[] = [];
    for (const e of input) {
      if (this.byName.has(e.name)) continue;
      const entity: Entity = { name: e.name, entityType: e.entityType, observations: [...e.observations] };
      this.loadEntity({ ...entity, observations: [...entity.observations] });
      created.push(entity);
    }
    return mutation(created, created, { op: 'createEntities', entities: created });
  }

  /** Adds the relations not already stored (equal on all three fields); dangling endpoints are allowed. */
  createRelations(input: readonly Relation[]): Mutation<Relation[]> {
    const created: Relation[] = [];
    for (const r of input) {
      if (this.byKey.has(relationKey(r))) continue;
      const relation: Relation = { from: r.from, to: r.to, relationType: r.relationType };
      this.addRelation(relation);
      created.push(relation);
    }
    return mutation(created, created, { op: 'createRelations', relations: created });
  }

  /**
   * Adds the observations an entity does not have yet. An unknown entity fails the whole call
   * before anything changes (`Entity with name X not found`). With `lenient` (journal replay onto
   * a file changed by someone else) unknown entities are skipped instead.
   */
  addObservations(input: readonly ObservationAddition[], lenient = false): Mutation<ObservationResult[]> {
    if (!lenient) {
      for (const o of input) {
        if (!this.byName.has(o.entityName)) throw new ToolError(`Entity with name ${o.entityName} not found`);
      }
    }
    const results: ObservationResult[] = [];
    const applied: ObservationAddition[] = [];
    for (const o of input) {
      const rec = this.byName.get(o.entityName);
      if (!rec) continue;
      const existing = new Set(rec.observations);
      const added = uniqueStrings(o.contents).filter((c) => !existing.has(c));
      if (added.length) {
        rec.observations.push(...added);
        rec.hay = undefined;
        applied.push({ entityName: o.entityName, contents: added });
      }
      results.push({ entityName: o.entityName, addedObservations: added });
    }
    return mutation(results, applied, { op: 'addObservations', observations: applied });
  }

  /** Removes every entity with one of these names and every relation touching one. Unknown names are ignored. */
  deleteEntities(names: readonly string[]): Mutation<void> {
    const deleted: string[] = [];
    for (const name of uniqueStrings(names)) {
      const rec = this.byName.get(name);
      const touching = this.byEndpoint.get(name);
      if (!rec && !touching) continue;
      if (rec) {
        this.entities.delete(rec);
        for (const more of this.moreByName.get(name) ?? []) this.entities.delete(more);
        this.byName.delete(name);
        this.moreByName.delete(name);
      }
      if (touching) {
        this.byEndpoint.delete(name);
        for (const r of touching) this.removeRelation(r);
      }
      deleted.push(name);
    }
    return mutation(undefined, deleted, { op: 'deleteEntities', names: deleted });
  }

  /** Removes these observations from the (first) entity with that name. Unknown entities are ignored. */
  deleteObservations(input: readonly ObservationDeletion[]): Mutation<void> {
    const applied: ObservationDeletion[] = [];
    for (const d of input) {
      const rec = this.byName.get(d.entityName);
      if (!rec) continue;
      const drop = new Set(d.observations);
      const kept = rec.observations.filter((o) => !drop.has(o));
      if (kept.length === rec.observations.length) continue;
      const removed = uniqueStrings(rec.observations.filter((o) => drop.has(o)));
      rec.observations = kept;
      rec.hay = undefined;
      applied.push({ entityName: d.entityName, observations: removed });
    }
    return mutation(undefined, applied, { op: 'deleteObservations', deletions: applied });
  }

  /** Removes stored relations equal on all three fields to one of these. */
  deleteRelations(input: readonly Relation[]): Mutation<void> {
    const removed: Relation[] = [];
    for (const r of input) {
      const key = relationKey(r);
      const rec = this.byKey.get(key);
      if (!rec) continue;
      for (const more of this.moreByKey.get(key) ?? []) this.removeRelation(more);
      this.removeRelation(rec);
      removed.push({ from: r.from, to: r.to, relationType: r.relationType });
    }
    return mutation(undefined, removed, { op: 'deleteRelations', relations: removed });
  }

  /** Applies a journal record (from this process or another). Returns whether the graph changed. */
  apply(record: GraphRecord, lenient: boolean): boolean {
    switch (record.op) {
      case 'createEntities':
        return this.createEntities(record.entities).changed;
      case 'createRelations':
        return this.createRelations(record.relations).changed;
      case 'addObservations':
        return this.addObservations(record.observations, lenient).changed;
      case 'deleteEntities':
        return this.deleteEntities(record.names).changed;
      case 'deleteObservations':
        return this.deleteObservations(record.deletions).changed;
      case 'deleteRelations':
        return this.deleteRelations(record.relations).changed;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Reads
  // -------------------------------------------------------------------------------------------

  /** The whole graph in file order, optionally one page of it. */
  read(page?: PageRequest): GraphPage {
    return this.slice(this.entities, this.entities.size, this.relations, this.relations.size, page);
  }

  /**
   * Entities whose name, type or an observation contains `query` (case-insensitive, as the
   * reference's `toLowerCase().includes`), plus the relations with either endpoint among them.
   */
  search(query: string, page?: PageRequest): GraphPage {
    const q = query.toLowerCase();
    const matched: EntityRec[] = [];
    if (q.includes(SEP)) {
      // The separator cannot be used to join fields; compare field by field.
      for (const e of this.entities) {
        if (
          e.name.toLowerCase().includes(q) ||
          e.entityType.toLowerCase().includes(q) ||
          e.observations.some((o) => o.toLowerCase().includes(q))
        )
          matched.push(e);
      }
    } else {
      for (const e of this.entities) {
        let hay = e.hay;
        if (hay === undefined) {
          hay = `${e.name.toLowerCase()}${SEP}${e.entityType.toLowerCase()}`;
          for (const o of e.observations) hay += SEP + o.toLowerCase();
          e.hay = hay;
        }
        if (hay.includes(q)) matched.push(e);
      }
    }
    const relations = this.relationsTouching(matched);
    return this.slice(matched, matched.length, relations, relations.length, page);
  }

  /** Entities with exactly these names (file order), plus the relations with either endpoint among them. */
  open(names: readonly string[], page?: PageRequest): GraphPage {
    const matched: EntityRec[] = [];
    for (const name of uniqueStrings(names)) {
      const rec = this.byName.get(name);
      if (!rec) continue;
      matched.push(rec);
      const more = this.moreByName.get(name);
      if (more) matched.push(...more);
    }
    matched.sort((a, b) => a.seq - b.seq);
    const relations = this.relationsTouching(matched);
    return this.slice(matched, matched.length, relations, relations.length, page);
  }

  // -------------------------------------------------------------------------------------------
  // Internals
  // -------------------------------------------------------------------------------------------

  private addRelation(r: Relation): void {
    const rec: RelationRec = { seq: this.nextSeq++, from: r.from, to: r.to, relationType: r.relationType, key: relationKey(r) };
    this.relations.add(rec);
    if (this.byKey.has(rec.key)) pushTo(this.moreByKey, rec.key, rec);
    else this.byKey.set(rec.key, rec);
    pushTo(this.byEndpoint, rec.from, rec);
    if (rec.to !== rec.from) pushTo(this.byEndpoint, rec.to, rec);
  }

  /** Drops a relation from every index (an endpoint list already dropped as a whole is skipped). */
  private removeRelation(rec: RelationRec): void {
    if (!this.relations.delete(rec)) return;
    if (this.byKey.get(rec.key) === rec) {
      const more = this.moreByKey.get(rec.key);
      if (more?.length) {
        this.byKey.set(rec.key, more.shift()!);
        if (more.length === 0) this.moreByKey.delete(rec.key);
      } else {
        this.byKey.delete(rec.key);
      }
    } else {
      removeFrom(this.moreByKey, rec.key, rec);
    }
    removeFrom(this.byEndpoint, rec.from, rec);
    if (rec.to !== rec.from) removeFrom(this.byEndpoint, rec.to, rec);
  }

  /** Relations with `from` or `to` among the names of `matched`, in file order. */
  private relationsTouching(matched: readonly EntityRec[]): RelationRec[] {
    if (matched.length === 0) return [];
    // Few matches: walk the endpoint index; many: one pass over all relations is cheaper.
    if (matched.length * 8 < this.relations.size) {
      const found = new Set<RelationRec>();
      for (const e of matched) for (const r of this.byEndpoint.get(e.name) ?? []) found.add(r);
      return [...found].sort((a, b) => a.seq - b.seq);
    }
    const names = new Set(matched.map((e) => e.name));
    const out: RelationRec[] = [];
    for (const r of this.relations) if (names.has(r.from) || names.has(r.to)) out.push(r);
    return out;
  }

  private slice(
    entities: Iterable<EntityRec>,
    entityTotal: number,
    relations: Iterable<RelationRec>,
    relationTotal: number,
    page: PageRequest = {},
  ): GraphPage {
    const offset = page.offset ?? 0;
    const end = page.limit === undefined ? Number.POSITIVE_INFINITY : offset + page.limit;
    const outEntities: (Entity | EntitySummary)[] = [];
    const outRelations: Relation[] = [];
    let i = 0;
    if (offset < entityTotal) {
      for (const e of entities) {
        if (i >= end) break;
        if (i >= offset)
          outEntities.push(
            page.namesOnly
              ? { name: e.name, entityType: e.entityType }
              : { name: e.name, entityType: e.entityType, observations: [...e.observations] },
          );
        i++;
      }
    } else {
      i = entityTotal;
    }
    if (i < end) {
      for (const r of relations) {
        if (i >= end) break;
        if (i >= offset) outRelations.push({ from: r.from, to: r.to, relationType: r.relationType });
        i++;
      }
    }
    const result: GraphPage = { entities: outEntities, relations: outRelations, totalEntities: entityTotal, totalRelations: relationTotal };
    if (end < entityTotal + relationTotal) result.nextOffset = end;
    return result;
  }
}
