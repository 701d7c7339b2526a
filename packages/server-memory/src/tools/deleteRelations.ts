import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { MemoryContext } from '../context.js';
import { RelationSchema, successOutput } from './schemas.js';

const MESSAGE = 'Relations deleted successfully';

export const deleteRelations = defineTool({
  name: 'delete_relations',
  title: 'Delete Relations',
  description: 'Delete multiple relations from the knowledge graph',
  input: { relations: z.array(RelationSchema).describe('An array of relations to delete') },
  output: successOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async ({ relations }, { store }: MemoryContext) => {
    await store.deleteRelations(relations);
    return structuredResult({ success: true, message: MESSAGE }, MESSAGE);
  },
});
