import { ToolError } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GraphPage, PageRequest } from '../graph.js';
import type { GraphStore } from '../store/types.js';

/** Caps on what one call may write. */
export interface Limits {
  maxNameLength: number;
  maxObservationLength: number;
  maxItemsPerCall: number;
}

export const DEFAULT_LIMITS: Limits = { maxNameLength: 1000, maxObservationLength: 10_000, maxItemsPerCall: 1000 };

export interface MemoryContext {
  store: GraphStore;
  limits: Limits;
}

// ---------------------------------------------------------------------------------------------
// Schemas (descriptions verbatim from the reference)
// ---------------------------------------------------------------------------------------------

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
    .describe('How many entities and relations the whole result has (present when limit, cursor or namesOnly was given)'),
  nextCursor: z.string().optional().describe('Present when the result was cut by limit: pass it as cursor to continue'),
};

// ---------------------------------------------------------------------------------------------
// Caps
// ---------------------------------------------------------------------------------------------

export function checkCount(count: number, what: string, limits: Limits): void {
  if (count > limits.maxItemsPerCall) {
    throw new ToolError(`Too many ${what} in one call: ${count}; at most ${limits.maxItemsPerCall} are allowed. Split the call.`);
  }
}

export function checkName(value: string, where: string, limits: Limits): void {
  if (value.length > limits.maxNameLength) {
    throw new ToolError(`${where} is ${value.length} characters long; at most ${limits.maxNameLength} are allowed`);
  }
}

export function checkObservations(values: readonly string[], where: string, limits: Limits): void {
  values.forEach((value, i) => {
    if (value.length > limits.maxObservationLength) {
      throw new ToolError(`${where}[${i}] is ${value.length} characters long; at most ${limits.maxObservationLength} are allowed`);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Pages
// ---------------------------------------------------------------------------------------------

export interface PageArgs {
  limit?: number | undefined;
  cursor?: string | undefined;
  namesOnly?: boolean | undefined;
}

/** FNV-1a of the call a cursor belongs to, so a cursor is not reused for another query by mistake. */
function fingerprint(key: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

/** Turns the optional page arguments into a `PageRequest` (undefined: the reference's whole result). */
export function pageRequest(args: PageArgs, callKey: string): PageRequest | undefined {
  if (args.limit === undefined && args.cursor === undefined && args.namesOnly === undefined) return undefined;
  let offset = 0;
  if (args.cursor !== undefined) {
    let parsed: { o?: unknown; k?: unknown } | undefined;
    try {
      parsed = JSON.parse(Buffer.from(args.cursor, 'base64url').toString('utf8'));
    } catch {}
    if (!parsed || !Number.isSafeInteger(parsed.o) || (parsed.o as number) < 0 || parsed.k !== fingerprint(callKey)) {
      throw new ToolError(
        'Invalid cursor: pass the nextCursor of the previous result unchanged, with the same query or names, or omit cursor to start over',
      );
    }
    offset = parsed.o as number;
  }
  return {
    offset,
    ...(args.limit !== undefined ? { limit: args.limit } : {}),
    ...(args.namesOnly ? { namesOnly: true } : {}),
  };
}

/** The read result: exactly the reference's `{entities, relations}` without page arguments, plus totals and a cursor with them. */
export function pageResult(page: GraphPage, request: PageRequest | undefined, callKey: string) {
  if (!request) return { entities: page.entities, relations: page.relations };
  return {
    entities: page.entities,
    relations: page.relations,
    total: { entities: page.totalEntities, relations: page.totalRelations },
    ...(page.nextOffset !== undefined
      ? { nextCursor: Buffer.from(JSON.stringify({ o: page.nextOffset, k: fingerprint(callKey) })).toString('base64url') }
      : {}),
  };
}
