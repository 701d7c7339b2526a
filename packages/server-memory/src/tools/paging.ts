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
  let after: string | undefined;
  let totals: PageRequest['totals'];
  if (args.cursor !== undefined) {
    let parsed: { o?: unknown; k?: unknown; a?: unknown; t?: unknown } | undefined;
    try {
      parsed = JSON.parse(Buffer.from(args.cursor, 'base64url').toString('utf8'));
    } catch {}
    if (!parsed || !Number.isSafeInteger(parsed.o) || (parsed.o as number) < 0 || parsed.k !== fingerprint(callKey)) {
      throw new ToolError(
        'Invalid cursor: pass the nextCursor of the previous result unchanged, with the same query or names, or omit cursor to start over',
      );
    }
    offset = parsed.o as number;
    // Cursors without `a`/`t` (before keyset paging) still page by offset; `a` and `t` are optional hints.
    if (typeof parsed.a === 'string' && /^[er]:\d{1,19}$/.test(parsed.a)) after = parsed.a;
    const t = parsed.t;
    if (Array.isArray(t) && t.length === 2 && t.every((n) => Number.isSafeInteger(n) && n >= 0)) {
      totals = { entities: t[0] as number, relations: t[1] as number };
    }
  }
  return {
    offset,
    ...(args.limit !== undefined ? { limit: args.limit } : {}),
    ...(args.namesOnly ? { namesOnly: true } : {}),
    ...(after !== undefined ? { after } : {}),
    ...(totals !== undefined ? { totals } : {}),
  };
}

/** The offset (every store), the seek key (stores that give one) and the first page's totals, so later pages neither skip nor count. */
function cursorOf(page: GraphPage, callKey: string): string {
  const c: { o?: number; a?: string; t: number[]; k: string } = {
    o: page.nextOffset,
    t: [page.totalEntities, page.totalRelations],
    k: fingerprint(callKey),
  };
  if (page.nextAfter !== undefined) c.a = page.nextAfter;
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

/** The read result: exactly the reference's `{entities, relations}` without page arguments, plus totals and a cursor with them. */
export function pageResult(page: GraphPage, request: PageRequest | undefined, callKey: string) {
  if (!request) return { entities: page.entities, relations: page.relations };
  return {
    entities: page.entities,
    relations: page.relations,
    total: { entities: page.totalEntities, relations: page.totalRelations },
    ...(page.nextOffset !== undefined ? { nextCursor: cursorOf(page, callKey) } : {}),
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
