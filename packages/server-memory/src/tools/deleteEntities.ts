import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { MemoryContext } from '../context.js';
import { successOutput } from './schemas.js';

const MESSAGE = 'Entities deleted successfully';

export const deleteEntities = defineTool({
  name: 'delete_entities',
  title: 'Delete Entities',
  description: 'Delete multiple entities and their associated relations from the knowledge graph',
  input: { entityNames: z.array(z.string()).describe('An array of entity names to delete') },
  output: successOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async ({ entityNames }, { store }: MemoryContext) => {
    await store.deleteEntities(entityNames);
    return structuredResult({ success: true, message: MESSAGE }, MESSAGE);
  },
});
