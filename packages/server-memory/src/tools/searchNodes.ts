import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { MemoryContext } from '../context.js';
import { readResult } from './paging.js';
import { graphOutput, pageInput } from './schemas.js';

export const searchNodes = defineTool({
  name: 'search_nodes',
  title: 'Search Nodes',
  description: 'Search for nodes in the knowledge graph based on a query',
  input: {
    query: z.string().describe('The search query to match against entity names, types, and observation content'),
    ...pageInput,
  },
  output: graphOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // A large page may take a while: a client that declares the tasks extension gets a task (when the server has one).
  task: 'optional',
  handler: async ({ query, ...args }, { store }: MemoryContext) => {
    const key = `search_nodes\u0000${query}`;
    return readResult(args, key, (page) => store.searchNodes(query, page));
  },
});
