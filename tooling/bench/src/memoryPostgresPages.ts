/**
 * Paged reads on PostgreSQL (issue 33 §4: a page ≤ 10 ms at 1M): `read_graph` and `search_nodes` with `limit 100`
 * through the server over stdio, the first page of a walk (totals counted up to a cap, estimated above), the next
 * page (its cursor carries the key and the totals) and a page halfway through the graph (the same cursor with the
 * key of the middle row: a keyset page costs the same at any depth). The search is `day 3`, which matches the
 * entities of 76 days in 365 (days 3, 30–39, 300–364): about 208k at 1M.
 */
import { type BenchContext, latency, ms, type StdioConnection } from './harness.js';
import { call } from './memoryPostgresOps.js';

const PAGE_GOAL_MS = 10;
const PAGE_QUERY = 'day 3';

export interface PageFigure {
  key: string;
  label: string;
  median: number;
  n: number;
  /** The totals the page reported (estimates above the exact cap). */
  total?: { entities: number; relations: number };
}

interface PageResult {
  structuredContent?: { nextCursor?: string; total?: { entities: number; relations: number } };
}

/** The same cursor pointing at entity row `seq` (offset `offset`): a walk's page at that depth. */
function deepCursor(cursor: string, seq: number, offset: number): string {
  const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
  return Buffer.from(JSON.stringify({ ...c, o: offset, a: `e:${seq}` })).toString('base64url');
}

/** Median per page over `calls` calls (a tenth more as warm-up), for each paged read on the graph of `n` entities. */
export async function pageFigures(conn: StdioConnection, n: number, calls: number): Promise<PageFigure[]> {
  const out: PageFigure[] = [];
  const time = async (key: string, label: string, tool: string, args: Record<string, unknown>) => {
    const first = (await call(conn, tool, args)) as PageResult;
    const s = await latency(() => call(conn, tool, args), calls, { warmup: Math.ceil(calls / 10) });
    out.push({ key, label, median: s.median, n: s.n, ...(first.structuredContent?.total ? { total: first.structuredContent.total } : {}) });
    return first.structuredContent?.nextCursor;
  };
  for (const [tool, extra, name] of [
    ['read_graph', {}, 'readGraph'],
    ['search_nodes', { query: PAGE_QUERY }, 'search'],
  ] as const) {
    const what = tool === 'read_graph' ? 'read_graph limit 100' : `search_nodes "${PAGE_QUERY}" limit 100`;
    const next = await time(`${name}First`, `${what}: first page (totals)`, tool, { ...extra, limit: 100 });
    if (!next) throw new Error(`${tool} at ${n}: no nextCursor on the first page`);
    await time(`${name}Next`, `${what}: next page (cursor)`, tool, { ...extra, limit: 100, cursor: next });
    // Row seq ≈ load order (identity), so n/2 is the middle of the graph.
    const deep = deepCursor(next, Math.floor(n / 2), Math.floor(tool === 'read_graph' ? n / 2 : (n * 76) / 730));
    await time(`${name}Deep`, `${what}: page at the middle (cursor)`, tool, { ...extra, limit: 100, cursor: deep });
  }
  return out;
}

/** Prints the page figures of the graph of `n` entities and judges each against `PAGE_GOAL_MS`. */
export function reportPages(ctx: BenchContext, n: number, figures: PageFigure[]): void {
  const label = n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`;
  ctx.table({
    title: `memory on PostgreSQL @ ${n.toLocaleString('en')} entities: one page of 100 (median per call, over stdio)`,
    headers: ['page', 'median', 'calls', 'totals reported'],
    rows: figures.map((f) => [f.label, ms(f.median), f.n, f.total ? `${f.total.entities} / ${f.total.relations}` : '']),
    notes: [
      `"${PAGE_QUERY}" matches ${Math.round((n * 76) / 365).toLocaleString('en')} entities; totals are exact up to a cap, then the planner's estimate (a page never counts the graph)`,
    ],
  });
  for (const f of figures) {
    ctx.check(`${label}: postgres ${f.label} ≤ ${PAGE_GOAL_MS} ms`, f.median <= PAGE_GOAL_MS, ms(f.median));
  }
}
