import type { Entity, GraphPage, ObservationAddition, ObservationDeletion, ObservationResult, PageRequest, Relation } from '../graph.js';

/** Why the graph changed: a call in this process, or another process writing the same file. */
export interface GraphChange {
  source: 'local' | 'external';
}

/** How far a load is: `loaded` of `total` bytes of the memory file read. */
export interface LoadProgress {
  loaded: number;
  total: number;
}

export interface ReadyOptions {
  /** Told how far the load is, at once and then as it goes (about every 50 ms). */
  onProgress?: (progress: LoadProgress) => void;
  /** Stops waiting (the promise rejects with the signal's reason); the load itself goes on for other calls. */
  signal?: AbortSignal;
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
  /**
   * Resolves once a held `watch()` handle hears every change other processes make from then on (PostgreSQL: once
   * its notification connection listens, or failed to and will report a change when it is back). Stores that
   * omit it hear them from the `watch()` call on.
   */
  listening?(): Promise<void>;
  /**
   * Resolves once the graph is loaded (at once when it is). Every other method waits for the load
   * itself; a caller calls this first to hear the progress of a load running in the background, or
   * to stop waiting for it (`signal`). Rejects as the method would when the load fails (a clear
   * `ToolError`: the file is locked too long, or is not a memory graph). Stores that load nothing omit it.
   */
  ready?(options?: ReadyOptions): Promise<void>;
  /** Finishes pending writes and releases files and timers. */
  close(): Promise<void>;
}
