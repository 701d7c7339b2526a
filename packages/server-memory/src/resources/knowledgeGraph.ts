import { defineResource, formatSize, MAX_RESULT_BYTES, sizeOver } from '@mcpkit/protocol-core';
import type { MemoryContext } from '../context.js';

export const KNOWLEDGE_GRAPH_URI = 'memory://knowledge-graph';

/**
 * The whole graph as JSON, as the reference serves it; subscribers hear about every change. A graph whose
 * answer would be over `MAX_RESULT_BYTES` (clients drop messages over 10 MiB) is an error pointing to the
 * paged read tools.
 */
const knowledgeGraphResource = defineResource<MemoryContext>({
  name: 'knowledge-graph',
  title: 'Knowledge Graph',
  description: 'The full knowledge graph with all entities and relations',
  mimeType: 'application/json',
  uri: KNOWLEDGE_GRAPH_URI,
  read: async (uri, _params, { store }) => {
    const { entities, relations } = await store.readGraph();
    const result = { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ entities, relations }, null, 2) }] };
    const size = sizeOver(result);
    if (size === undefined) return result;
    throw new Error(
      `The knowledge graph is ${formatSize(size)} as JSON, over the answer limit of ${formatSize(MAX_RESULT_BYTES)}; ` +
        'read it in pages with the read_graph tool (limit, cursor, namesOnly)',
    );
  },
});

export const resources = [knowledgeGraphResource];
