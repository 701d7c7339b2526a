import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { MemoryContext } from '../context.js';
import { checkCount, checkEcho, checkObservations } from './limits.js';

export const addObservations = defineTool({
  name: 'add_observations',
  title: 'Add Observations',
  description: 'Add new observations to existing entities in the knowledge graph',
  input: {
    observations: z.array(
      z.object({
        entityName: z.string().describe('The name of the entity to add the observations to'),
        contents: z.array(z.string()).describe('An array of observation contents to add'),
      }),
    ),
  },
  output: {
    results: z.array(z.object({ entityName: z.string(), addedObservations: z.array(z.string()) })),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ observations }, { store, limits }: MemoryContext) => {
    checkCount(
      observations.reduce((n, o) => n + o.contents.length, 0),
      'observations',
      limits,
    );
    for (const [i, o] of observations.entries()) checkObservations(o.contents, `observations[${i}].contents`, limits);
    // An unknown entity fails the whole call before anything is saved: `Entity with name X not found`.
    checkEcho('results', observations);
    const results = await store.addObservations(observations);
    return structuredResult({ results }, JSON.stringify(results, null, 2));
  },
});
