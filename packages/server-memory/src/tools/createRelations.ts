import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { MemoryContext } from '../context.js';
import { checkCount, checkEcho, checkName } from './limits.js';
import { RelationSchema } from './schemas.js';

export const createRelations = defineTool({
  name: 'create_relations',
  title: 'Create Relations',
  description: 'Create multiple new relations between entities in the knowledge graph. Relations should be in active voice',
  input: { relations: z.array(RelationSchema) },
  output: { relations: z.array(RelationSchema) },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ relations }, { store, limits }: MemoryContext) => {
    checkCount(relations.length, 'relations', limits);
    relations.forEach((r, i) => {
      checkName(r.from, `relations[${i}].from`, limits);
      checkName(r.to, `relations[${i}].to`, limits);
      checkName(r.relationType, `relations[${i}].relationType`, limits);
    });
    checkEcho('relations', relations);
    const created = await store.createRelations(relations);
    return structuredResult({ relations: created }, JSON.stringify(created, null, 2));
  },
});
