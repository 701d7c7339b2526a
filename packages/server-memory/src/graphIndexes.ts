/**
 * How the graph is held: the entity records by name (and in file order, in the search index), the
 * relation list, relations by endpoint (`endpoints.ts`, which also finds an equal relation), one
 * string per type, and loading and serialising in file order. `Graph` (`graph.ts`) adds the
 * operations on top; this class only keeps the indexes consistent with each other.
 *
 * An entity loaded from a plain line of a file (`plainLines.ts`: nearly all of them) keeps its
 * observations in that line until a change needs them as an array; reads parse them out of the
 * line, and writing the file back writes the line as it is.
 */
import { EndpointIndex, type RelationRec } from './endpoints.js';
import type { Entity, Relation } from './graphTypes.js';
import { plainObservations } from './plainLines.js';
import { RelationList } from './relationList.js';
import { SearchIndex, type SearchIndexOptions } from './search/searchIndex.js';

export interface EntityRec {
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
export function observationsOf(e: EntityRec): string[] {
  return e.observations ?? plainObservations(e.line!);
}

/** The observations of `e`, to change: parsed out of its line once and kept. */
export function ownObservations(e: EntityRec): string[] {
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

export class GraphIndexes {
  private nextSeq = 1;
  /** The first entity of each name, and (rare: only files written by the reference) later ones. */
  protected readonly byName = new Map<string, EntityRec>();
  protected readonly moreByName = new Map<string, EntityRec[]>();
  /** Insertion order is file order: records are never re-inserted, so order equals `seq` order. */
  protected readonly relations = new RelationList();
  /** Relations by `from` and by `to` (each chain's head held by the entity of that name); also how an equal relation is found. */
  protected readonly byEndpoint = new EndpointIndex((name) => this.byName.get(name));
  /** The entities in file order (by `sid`), and the search over them. */
  protected readonly index: SearchIndex<EntityRec>;
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

  /** Builds the search index now instead of on the first search (for an idle moment after a load). */
  prepareSearch(): void {
    this.index.prepare();
  }

  // -------------------------------------------------------------------------------------------
  // Keeping the indexes together
  // -------------------------------------------------------------------------------------------

  protected addRelation(r: Relation): void {
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

  protected removeRelation(rec: RelationRec): void {
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
  protected relationsTouching(matched: readonly EntityRec[]): RelationRec[] {
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
}
