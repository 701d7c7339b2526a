import type { Entity, GraphPage, ObservationAddition, ObservationDeletion, ObservationResult, PageRequest, Relation } from '../graph.js';

/** Why the graph changed: a call in this process, or another process writing the same file. */
export interface GraphChange {
  source: 'local' | 'external';
}

/**
 * Where the knowledge graph lives. Every implementation passes the shared suite in
 * `test/storeSuite.ts`. Mutations are durable when their promise resolves; a rejected mutation
 * changed nothing. `addObservations` rejects with `Entity with name X not found` (a `ToolError`).
 */
export interface GraphStore {
  /** Where the data lives, for logs (a path, or `memory` for the in-memory store). */
  readonly location: string;
  createEntities(entities: Entity[]): Promise<Entity[]>;
  createRelations(relations: Relation[]): Promise<Relation[]>;
  addObservations(additions: ObservationAddition[]): Promise<ObservationResult[]>;
  deleteEntities(names: string[]): Promise<void>;
  deleteObservations(deletions: ObservationDeletion[]): Promise<void>;
  deleteRelations(relations: Relation[]): Promise<void>;
  readGraph(page?: PageRequest): Promise<GraphPage>;
  searchNodes(query: string, page?: PageRequest): Promise<GraphPage>;
  openNodes(names: string[], page?: PageRequest): Promise<GraphPage>;
  /** Called after every change that altered the graph. Returns the unsubscribe function. */
  onChange(listener: (change: GraphChange) => void): () => void;
  /**
   * Asks the store to look for changes made by other processes on its own (not only on the next
   * call) while the returned handle is held. Stores without outside writers return a no-op.
   */
  watch(): () => void;
  /** Finishes pending writes and releases files and timers. */
  close(): Promise<void>;
}
