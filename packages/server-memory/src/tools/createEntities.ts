import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { MemoryContext } from '../context.js';
import { checkCount, checkEcho, checkName, checkObservations } from './limits.js';
import { EntitySchema } from './schemas.js';

export const createEntities = defineTool({
  name: 'create_entities',
  title: 'Create Entities',
  description: 'Create multiple new entities in the knowledge graph',
  input: { entities: z.array(EntitySchema) },
  output: { entities: z.array(EntitySchema) },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ entities }, { store, limits }: MemoryContext) => {
    checkCount(entities.length, 'entities', limits);
    checkCount(
      entities.reduce((n, e) => n + e.observations.length, 0),
      'observations',
      limits,
    );
    entities.forEach((e, i) => {
      checkName(e.name, `entities[${i}].name`, limits);
      checkName(e.entityType, `entities[${i}].entityType`, limits);
      checkObservations(e.observations, `entities[${i}].observations`, limits);
    });
    checkEcho('entities', entities);
    const created = await store.createEntities(entities);
    return structuredResult({ entities: created }, JSON.stringify(created, null, 2));
  },
});
