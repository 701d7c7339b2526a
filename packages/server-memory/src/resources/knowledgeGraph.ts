import { defineResource } from '@mcpkit/protocol-core';
import type { MemoryContext } from '../context.js';

export const KNOWLEDGE_GRAPH_URI = 'memory://knowledge-graph';

/** The whole graph as JSON, as the reference serves it; subscribers hear about every change. */
export const knowledgeGraphResource = defineResource<MemoryContext>({
  name: 'knowledge-graph',
  title: 'Knowledge Graph',
  description: 'The full knowledge graph with all entities and relations',
  mimeType: 'application/json',
  uri: KNOWLEDGE_GRAPH_URI,
  read: async (uri, _params, { store }) => {
    const { entities, relations } = await store.readGraph();
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ entities, relations }, null, 2) }] };
  },
});

export const resources = [knowledgeGraphResource];
