/**
 * The knowledge graph held in memory, with the indexes the reference lacks: entities by name (and
 * in file order, in the search index), relations by endpoint (`endpoints.ts`, which also finds an
 * equal relation), and a trigram index for search (`search/`).
 *
 * Semantics follow the reference (`src/memory/index.ts`), with the deviations listed in the README:
 * intra-batch duplicates are dropped (first wins) instead of being stored twice. Everything a file
 * written by the reference can hold (two entities with one name, repeated relations) is kept as is.
 *
 * Every mutation returns the journal records that replay it (`GraphRecord`); applying the same
 * records to the same graph gives the same graph, and applying them again changes nothing.
 *
 * An entity loaded from a plain line of a file (`plainLines.ts`: nearly all of them) keeps its
 * observations in that line until a change needs them as an array; reads parse them out of the
 * line, and writing the file back writes the line as it is.
 */
import { ToolError } from '@mcpkit/protocol-core';
import { EndpointIndex, type RelationRec } from './endpoints.js';
import { plainObservations } from './plainLines.js';
import { SearchIndex, type SearchIndexOptions } from './search/searchIndex.js';

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
  /** Undefined while they are still in `line` (see `observationsOf`). */
  observations: string[] | undefined;
  /** A plain line of the file this entity was loaded from, holding its observations until a change needs them. */
  line: string | undefined;
  /** Position in the search index (assigned by it). */
  sid: number;
  /** The head of the chain of relations with this name at an end (`endpoints.ts`); on the first entity of a name only. */
  ends: RelationRec | undefined;
}

/** How many distinct types are shared (one string for every entity or relation of that type); later ones are kept as given. */
const MAX_SHARED_TYPES = 4096;

/** The observations of `e`: parsed from its line (a new array each time) while they are still there. */
function observationsOf(e: EntityRec): string[] {
  return e.observations ?? plainObservations(e.line!);
}

/** The observations of `e`, to change: parsed out of its line once and kept. */
function ownObservations(e: EntityRec): string[] {
  if (e.observations === undefined) {
    e.observations = plainObservations(e.line!);
    e.line = undefined;
  }
  return e.observations;
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function uniqueStrings(values: readonly string[]): string[] {
  return values.length < 2 ? [...values] : [...new Set(values)];
}

/**
 * The relations in insertion order: an array with holes where relations were removed (each knows
 * its slot), closed up once the holes outnumber the live ones. Cheaper to fill than a `Set`.
 */
class RelationList {
  private slots: (RelationRec | undefined)[] = [];
  size = 0;

  add(r: RelationRec): void {
    r.at = this.slots.length;
    this.slots.push(r);
    this.size++;
  }

  /** Removes `r`; false if it was not in the list. */
  delete(r: RelationRec): boolean {
    if (r.at < 0 || this.slots[r.at] !== r) return false;
    this.slots[r.at] = undefined;
    r.at = -1;
    this.size--;
    if (this.slots.length - this.size > Math.max(1024, this.size)) this.closeUp();
    return true;
  }

  *[Symbol.iterator](): IterableIterator<RelationRec> {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i++) {
      const r = slots[i];
      if (r) yield r;
    }
  }

  private closeUp(): void {
    const live: RelationRec[] = [];
    for (const r of this.slots) {
      if (!r) continue;
      r.at = live.length;
      live.push(r);
    }
    this.slots = live;
  }
}

/** A mutation that applied `applied` items: it changed the graph, and `record` replays it, only if there was at least one. */
function mutation<T>(value: T, applied: readonly unknown[], record: GraphRecord): Mutation<T> {
  return applied.length > 0 ? { value, changed: true, records: [record] } : { value, changed: false, records: [] };
}

export class Graph {
  private nextSeq = 1;
  /** The first entity of each name, and (rare: only files written by the reference) later ones. */
  private readonly byName = new Map<string, EntityRec>();
  private readonly moreByName = new Map<string, EntityRec[]>();
  /** Insertion order is file order: records are never re-inserted, so order equals `seq` order. */
  private readonly relations = new RelationList();
  /** Relations by `from` and by `to` (each chain's head held by the entity of that name); also how an equal relation is found. */
  private readonly byEndpoint = new EndpointIndex((name) => this.byName.get(name));
  /** The entities in file order (by `sid`), and the search over them. */
  private readonly index: SearchIndex<EntityRec>;
  private readonly types = new Map<string, string>();

  /** `search` tunes the search index (tests use it to reach every path with small graphs). */
  constructor(search?: SearchIndexOptions) {
    this.index = new SearchIndex(observationsOf, search);
  }

  // -------------------------------------------------------------------------------------------
  // Loading (file order, duplicates kept) and serialising
  // -------------------------------------------------------------------------------------------

  /** Appends an entity as loaded from a file, even if its name exists (a reference file may hold both). */
  loadEntity(e: Entity): void {
    this.addEntityRec(e.name, e.entityType, e.observations, undefined);
  }

  /** `loadEntity` for a plain line (`plainLines.ts`): its observations stay in `line` until something needs them. */
  loadPlainEntity(name: string, entityType: string, line: string): void {
    this.addEntityRec(name, entityType, undefined, line);
  }

  private addEntityRec(name: string, entityType: string, observations: string[] | undefined, line: string | undefined): void {
    const rec: EntityRec = {
      seq: this.nextSeq++,
      name,
      entityType: this.sharedType(entityType),
      observations,
      line,
      sid: -1,
      ends: undefined,
    };
    this.index.add(rec);
    if (this.byName.has(name)) {
      pushTo(this.moreByName, name, rec);
    } else {
      this.byName.set(name, rec);
      this.byEndpoint.held(name, rec);
    }
  }

  /** Appends a relation as loaded from a file, even if an equal one exists. */
  loadRelation(r: Relation): void {
    this.addRelation(r);
  }

  /** Every entity then every relation, in file order (the shape of the reference's file). */
  *entityList(): IterableIterator<Entity> {
    for (const e of this.index.entities()) yield { name: e.name, entityType: e.entityType, observations: observationsOf(e) };
  }

  /** Every entity as a line of the file, in file order: `format` of it, or the plain line it was loaded from (the same text). */
  *entityLines(format: (e: Entity) => string): IterableIterator<string> {
    for (const e of this.index.entities()) {
      yield e.line ?? format({ name: e.name, entityType: e.entityType, observations: e.observations! });
    }
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
      if (this.byEndpoint.equal(r).length > 0) continue;
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
      const existing = new Set(observationsOf(rec));
      const added = uniqueStrings(o.contents).filter((c) => !existing.has(c));
      if (added.length) {
        ownObservations(rec).push(...added);
        this.index.grew(rec, added);
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
      const touching = this.byEndpoint.touching(name);
      if (!rec && touching.length === 0) continue;
      // The relations first: the entity holds the head of their chain.
      for (const r of touching) this.removeRelation(r);
      if (rec) {
        this.index.remove(rec);
        for (const more of this.moreByName.get(name) ?? []) this.index.remove(more);
        this.byName.delete(name);
        this.moreByName.delete(name);
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
      const observations = observationsOf(rec);
      const kept = observations.filter((o) => !drop.has(o));
      if (kept.length === observations.length) continue;
      const removed = uniqueStrings(observations.filter((o) => drop.has(o)));
      rec.observations = kept;
      rec.line = undefined;
      this.index.shrank(rec);
      applied.push({ entityName: d.entityName, observations: removed });
    }
    return mutation(undefined, applied, { op: 'deleteObservations', deletions: applied });
  }

  /** Removes stored relations equal on all three fields to one of these. */
  deleteRelations(input: readonly Relation[]): Mutation<void> {
    const removed: Relation[] = [];
    for (const r of input) {
      // A file written by the reference may hold equal relations: all go.
      const equal = this.byEndpoint.equal(r);
      if (equal.length === 0) continue;
      for (const rec of equal) this.removeRelation(rec);
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
    return this.slice(this.index.entities(), this.index.size, this.relations, this.relations.size, page);
  }

  /**
   * Entities whose name, type or an observation contains `query` (case-insensitive, as the
   * reference's `toLowerCase().includes`), plus the relations with either endpoint among them.
   */
  search(query: string, page?: PageRequest): GraphPage {
    const matched = this.index.search(query);
    const relations = this.relationsTouching(matched);
    return this.slice(matched, matched.length, relations, relations.length, page);
  }

  /** Builds the search index now instead of on the first search (for an idle moment after a load). */
  prepareSearch(): void {
    this.index.prepare();
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
    const fromEntity = this.byName.get(r.from);
    const toEntity = this.byName.get(r.to);
    // Endpoints share the entity's name string when there is one (a loaded file repeats each name in its relations).
    const rec = this.newRelation(fromEntity?.name ?? r.from, toEntity?.name ?? r.to, r.relationType);
    this.byEndpoint.link(rec.from, rec, fromEntity);
    if (rec.to !== rec.from) this.byEndpoint.link(rec.to, rec, toEntity);
  }

  /** A relation record appended to `relations` (not linked by endpoint yet). */
  private newRelation(from: string, to: string, relationType: string): RelationRec {
    const rec: RelationRec = {
      seq: this.nextSeq++,
      at: -1,
      from,
      to,
      relationType: this.sharedType(relationType),
      nextFrom: undefined,
      prevFrom: undefined,
      nextTo: undefined,
      prevTo: undefined,
    };
    this.relations.add(rec);
    return rec;
  }

  private removeRelation(rec: RelationRec): void {
    if (this.relations.delete(rec)) this.byEndpoint.remove(rec);
  }

  /** One string per type for the first `MAX_SHARED_TYPES` types (types repeat across thousands of items). */
  private sharedType(type: string): string {
    const shared = this.types.get(type);
    if (shared !== undefined) return shared;
    if (this.types.size < MAX_SHARED_TYPES) this.types.set(type, type);
    return type;
  }

  /** Relations with `from` or `to` among the names of `matched`, in file order. */
  private relationsTouching(matched: readonly EntityRec[]): RelationRec[] {
    if (matched.length === 0) return [];
    // Few matches: walk the endpoint index; many: one pass over all relations is cheaper.
    if (matched.length * 8 < this.relations.size) {
      const found = new Set<RelationRec>();
      for (const e of matched) for (const r of this.byEndpoint.touching(e.name)) found.add(r);
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
              : { name: e.name, entityType: e.entityType, observations: e.observations ? [...e.observations] : plainObservations(e.line!) },
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
