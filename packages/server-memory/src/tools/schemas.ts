/** The tools' zod shapes; descriptions verbatim from the reference, where it has them. */
import { z } from 'zod';

export const EntitySchema = z.object({
  name: z.string().describe('The name of the entity'),
  entityType: z.string().describe('The type of the entity'),
  observations: z.array(z.string()).describe('An array of observation contents associated with the entity'),
});

export const RelationSchema = z.object({
  from: z.string().describe('The name of the entity where the relation starts'),
  to: z.string().describe('The name of the entity where the relation ends'),
  relationType: z.string().describe('The type of the relation'),
});

/** In read results, `observations` is left out when `namesOnly` was asked for. */
const ReadEntitySchema = EntitySchema.extend({ observations: EntitySchema.shape.observations.optional() });

export const successOutput = { success: z.boolean(), message: z.string() };

/** Optional arguments the reference lacks; without them a read returns everything, as the reference does. */
export const pageInput = {
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      'Return at most this many items, entities first then relations; the result then says how many there are and gives nextCursor for the rest',
    ),
  cursor: z.string().optional().describe('The nextCursor of the previous result, to get the next page of the same call'),
  namesOnly: z.boolean().optional().describe('Return entities as name and entityType only, without observations'),
};

export const graphOutput = {
  entities: z.array(ReadEntitySchema),
  relations: z.array(RelationSchema),
  total: z
    .object({ entities: z.number().int(), relations: z.number().int() })
    .optional()
    .describe(
      'How many entities and relations the whole result has (present when limit, cursor or namesOnly was given); as of the first page of a walk, and on PostgreSQL an estimate above 1000 (search_nodes: above 100 matches)',
    ),
  nextCursor: z.string().optional().describe('Present when the result was cut by limit: pass it as cursor to continue'),
};
