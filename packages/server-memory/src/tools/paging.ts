/** The reads' optional paging: `limit`/`cursor`/`namesOnly` in, `total`/`nextCursor` out. */
import { fitCount, sizeOver, structuredResult, ToolError } from '@mcpkit/protocol-core';
import type { GraphPage, PageRequest } from '../graph.js';

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

/**
 * A read tool's result. One over the answer limit (`MAX_RESULT_BYTES`, below the 10 MiB clients accept)
 * is cut to the longest page that fits, whatever `limit` was asked for (or without one): the result then
 * carries `total` and a `nextCursor` for the rest, as a page asked for does.
 */
export async function readResult(args: PageArgs, callKey: string, read: (page?: PageRequest) => Promise<GraphPage>) {
  const request = pageRequest(args, callKey);
  const page = await read(request);
  const whole = structuredResult(pageResult(page, request, callKey));
  if (sizeOver(whole) === undefined) return whole;
  const cut = { ...request, offset: request?.offset ?? 0 };
  const items = page.entities.length + page.relations.length;
  const { value } = await fitCount(Math.max(1, items - 1), async (limit) => {
    const smaller = { ...cut, limit: Math.max(1, limit) };
    return structuredResult(pageResult(await read(smaller), smaller, callKey));
  });
  return value;
}
