import { defineTool } from '@mcpkit/protocol-core';
import type { MemoryContext } from '../context.js';
import { readResult } from './paging.js';
import { graphOutput, pageInput } from './schemas.js';

export const readGraph = defineTool({
  name: 'read_graph',
  title: 'Read Graph',
  description: 'Read the entire knowledge graph',
  input: pageInput,
  output: graphOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // A large page may take a while: a client that declares the tasks extension gets a task (when the server has one).
  task: 'optional',
  handler: async (args, { store }: MemoryContext) => {
    return readResult(args, 'read_graph', (page) => store.readGraph(page));
  },
});
