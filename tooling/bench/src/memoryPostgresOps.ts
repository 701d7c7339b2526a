/**
 * What the `memory-postgres` suite times on each server, and how it judges the figures (issue 19's
 * goals: search ≤ 5 ms at 1M, single writes ≤ 2 ms, start-up not dependent on the graph's size).
 * The graph is the memory suite's (`memoryGraph.ts`): `entity-<i>`, `type-<i % 20>`, 3 observations
 * (`observation <i>-a about the project schedule`, `… <i>-b: prefers short answers`, `… <i>-c met on
 * day <i % 365>`), one `works_with` relation per entity.
 */
import { type BenchContext, callOk, type Stats, type StdioConnection } from './harness.js';

export type Side = 'postgres' | 'file' | 'reference';

export const GOAL = {
  /** search_nodes (selective) median at 1M entities. */
  searchMs: 5,
  /** Each single-item write's median. */
  writeMs: 2,
  /** Spawn → first answered call with the graph ≤ this × with an empty graph (noise allowance; the goal is "independent of size"). */
  startVsEmpty: 1.2,
};

export interface PgOp {
  key: string;
  label: string;
  /** A single-item write, judged against `GOAL.writeMs`. */
  write?: boolean;
  /** Answers thousands of entities at 1M (hundreds of ms a call): fewer calls. */
  heavy?: boolean;
  run: (conn: StdioConnection, i: number, side: Side, n: number) => Promise<unknown>;
}

/** The reference re-reads (and on writes rewrites) the whole file per call: a long SDK timeout. */
export const call = (conn: StdioConnection, name: string, args: Record<string, unknown>) =>
  callOk(conn, name, args, { timeoutMs: 600_000 });

/** An id that spreads over the whole graph (7919 is prime, so consecutive calls hit far-apart rows). */
const spread = (i: number, n: number) => (i * 7919) % n;

export function pgOps(): PgOp[] {
  return [
    {
      key: 'searchSelective',
      label: 'search_nodes (selective: 1 hit)',
      // `observation 123-a` is in entity-123 only (`observation 1123-a` does not contain it); upper case tests the folding.
      run: (c, i, _s, n) => call(c, 'search_nodes', { query: `Observation ${spread(i, n)}-A` }),
    },
    {
      key: 'searchCommon',
      label: 'search_nodes (common: 1 in 365, whole answer)',
      heavy: true,
      // Days 100-364 only: `met on day 123` matches day 123 alone (a 2-digit day would also match 3-digit ones).
      run: (c, i) => call(c, 'search_nodes', { query: `met on day ${100 + ((i * 7) % 265)}` }),
    },
    {
      key: 'open',
      label: 'open_nodes (3 names)',
      run: (c, i, _s, n) => call(c, 'open_nodes', { names: [0, 1, 2].map((k) => `entity-${spread(i + k * 101, n)}`) }),
    },
    {
      key: 'create1',
      label: 'create_entities (1)',
      write: true,
      run: (c, i, s, n) =>
        call(c, 'create_entities', { entities: [{ name: `new-${s}-${n}-${i}`, entityType: 'bench', observations: ['a', 'b', 'c'] }] }),
    },
    {
      key: 'addObs',
      label: 'add_observations (1)',
      write: true,
      run: (c, i, s, n) =>
        call(c, 'add_observations', { observations: [{ entityName: `entity-${spread(i, n)}`, contents: [`added by ${s} ${i}`] }] }),
    },
    {
      key: 'createRel',
      label: 'create_relations (1)',
      write: true,
      run: (c, i, s, n) =>
        call(c, 'create_relations', {
          relations: [{ from: `entity-${spread(i, n)}`, to: `entity-${i % n}`, relationType: `knows-${s}-${i}` }],
        }),
    },
  ];
}

/** Per-call figures: the harness's order statistics plus the p95 the issue asks for. */
export type OpStats = Stats & { p95: number };

export function withP95(s: Stats & { samples: number[] }): OpStats {
  const sorted = [...s.samples].sort((a, b) => a - b);
  const { samples: _samples, ...rest } = s;
  return { ...rest, p95: sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)]! };
}

/** `100k`, `1M`. */
export const sizeLabel = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));

/** Calls per op and side (the reference pays a whole-file read per call: a few only). */
export function callsFor(ctx: BenchContext, side: Side, op?: PgOp): { calls: number; warmup: number } {
  if (side === 'reference') return { calls: ctx.scale(3, 2), warmup: 1 };
  return op?.heavy ? { calls: ctx.scale(40, 10), warmup: ctx.scale(5, 2) } : { calls: ctx.scale(200, 40), warmup: ctx.scale(30, 10) };
}
