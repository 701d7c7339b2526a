import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import type { MemoryContext } from '../context.js';
import { pageRequest, pageResult } from './paging.js';
import { graphOutput, pageInput } from './schemas.js';

export const readGraph = defineTool({
  name: 'read_graph',
  title: 'Read Graph',
  description: 'Read the entire knowledge graph',
  input: pageInput,
  output: graphOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (args, { store }: MemoryContext) => {
    const key = 'read_graph';
    const request = pageRequest(args, key);
    return structuredResult(pageResult(await store.readGraph(request), request, key));
  },
});
