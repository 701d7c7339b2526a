/**
 * The graph's data as the tools, the stores and the journal see it: entities, relations, pages of a
 * read, and the journal records a mutation returns. Types only; the graph itself is `graph.ts`.
 */

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
  /** A store's key of the last item of the previous page (`GraphPage.nextAfter`): the store may seek past it instead of skipping `offset` items. */
  after?: string;
  /** The totals the first page of this walk gave: a store may repeat them instead of counting again. */
  totals?: { entities: number; relations: number };
}

export interface GraphPage {
  entities: (Entity | EntitySummary)[];
  relations: Relation[];
  /** Entities and relations in the whole result, before `offset`/`limit`. */
  totalEntities: number;
  totalRelations: number;
  /** Offset of the next page when this one was cut by `limit`. */
  nextOffset?: number;
  /** With `nextOffset`, from stores that seek: the key to pass as `after` for the next page. */
  nextAfter?: string;
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
