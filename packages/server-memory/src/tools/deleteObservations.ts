import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { MemoryContext } from '../context.js';
import { successOutput } from './schemas.js';

const MESSAGE = 'Observations deleted successfully';

export const deleteObservations = defineTool({
  name: 'delete_observations',
  title: 'Delete Observations',
  description: 'Delete specific observations from entities in the knowledge graph',
  input: {
    deletions: z.array(
      z.object({
        entityName: z.string().describe('The name of the entity containing the observations'),
        observations: z.array(z.string()).describe('An array of observations to delete'),
      }),
    ),
  },
  output: successOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async ({ deletions }, { store }: MemoryContext) => {
    await store.deleteObservations(deletions);
    return structuredResult({ success: true, message: MESSAGE }, MESSAGE);
  },
});
