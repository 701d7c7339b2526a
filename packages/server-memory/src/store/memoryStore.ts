import { Graph } from '../graph.js';
import type { GraphChange, GraphStore } from './types.js';

/**
 * A store that keeps the graph in this process only: nothing is written anywhere. For tests,
 * embedding, and as the second implementation the shared store suite runs against.
 */
export function createMemoryStore(): GraphStore {
  const graph = new Graph();
  const listeners = new Set<(change: GraphChange) => void>();
  let closed = false;
  const mutate = async <T>(run: () => { value: T; changed: boolean }): Promise<T> => {
    if (closed) throw new Error('the memory store is closed');
    const { value, changed } = run();
    if (changed) for (const l of listeners) l({ source: 'local' });
    return value;
  };
  return {
    location: 'memory',
    createEntities: (entities) => mutate(() => graph.createEntities(entities)),
    createRelations: (relations) => mutate(() => graph.createRelations(relations)),
    addObservations: (additions) => mutate(() => graph.addObservations(additions)),
    deleteEntities: (names) => mutate(() => graph.deleteEntities(names)),
    deleteObservations: (deletions) => mutate(() => graph.deleteObservations(deletions)),
    deleteRelations: (relations) => mutate(() => graph.deleteRelations(relations)),
    readGraph: async (page) => graph.read(page),
    searchNodes: async (query, page) => graph.search(query, page),
    openNodes: async (names, page) => graph.open(names, page),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    watch: () => () => {},
    async close() {
      closed = true;
      listeners.clear();
    },
  };
}
