import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { MemoryContext } from '../context.js';
import { readResult } from './paging.js';
import { graphOutput, pageInput } from './schemas.js';

export const openNodes = defineTool({
  name: 'open_nodes',
  title: 'Open Nodes',
  description: 'Open specific nodes in the knowledge graph by their names',
  input: {
    names: z.array(z.string()).describe('An array of entity names to retrieve'),
    ...pageInput,
  },
  output: graphOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ names, ...args }, { store }: MemoryContext) => {
    const key = `open_nodes\u0000${names.join('\u0000')}`;
    return readResult(args, key, (page) => store.openNodes(names, page));
  },
});
