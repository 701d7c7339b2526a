/**
 * The knowledge graph held in memory: the operations the tools and the journal use, on top of the
 * indexes the reference lacks (`graphIndexes.ts`: entities by name and in file order, relations by
 * endpoint, the trigram index for search). The data types are in `graphTypes.ts`, re-exported here.
 *
 * Semantics follow the reference (`src/memory/index.ts`), with the deviations listed in the README:
 * intra-batch duplicates are dropped (first wins) instead of being stored twice. Everything a file
 * written by the reference can hold (two entities with one name, repeated relations) is kept as is.
 *
 * Every mutation returns the journal records that replay it (`GraphRecord`); applying the same
 * records to the same graph gives the same graph, and applying them again changes nothing.
 */
import { ToolError } from '@mcpkit/protocol-core';
import type { RelationRec } from './endpoints.js';
import { type EntityRec, GraphIndexes, observationsOf, ownObservations } from './graphIndexes.js';
import type {
  Entity,
  EntitySummary,
  GraphPage,
  GraphRecord,
  Mutation,
  ObservationAddition,
  ObservationDeletion,
  ObservationResult,
  PageRequest,
  Relation,
} from './graphTypes.js';
import { plainObservations } from './plainLines.js';

export type {
  Entity,
  EntitySummary,
  GraphPage,
  GraphRecord,
  KnowledgeGraph,
  Mutation,
  ObservationAddition,
  ObservationDeletion,
  ObservationResult,
  PageRequest,
  Relation,
} from './graphTypes.js';

function uniqueStrings(values: readonly string[]): string[] {
  return values.length < 2 ? [...values] : [...new Set(values)];
}

/** A mutation that applied `applied` items: it changed the graph, and `record` replays it, only if there was at least one. */
function mutation<T>(value: T, applied: readonly unknown[], record: GraphRecord): Mutation<T> {
  return applied.length > 0 ? { value, changed: true, records: [record] } : { value, changed: false, records: [] };
}

export class Graph extends GraphIndexes {
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
