import { performance } from 'node:perf_hooks';
import { type BenchContext, callOk, connectStdio, peakRss, type SpawnSpec, type Stats, type StdioConnection } from '../../harness.js';

export type Side = 'ours' | 'reference';

export interface OpSpec {
  key: string;
  label: string;
  /** A mutation: the record it appends to the journal (for its disk floor). */
  record?: 'small' | 'batch';
  /** Calls for ours and for the reference at this size. */
  calls: (side: Side, n: number) => number;
  run: (conn: StdioConnection, i: number, side: Side, n: number) => Promise<unknown>;
  /** Untimed, after the op's calls on one side: undoes what they added, so every op runs on a graph of the nominal size. */
  cleanup?: (conn: StdioConnection, side: Side) => Promise<unknown>;
}

let unique = 0;
const newEntity = (tag: string) => ({ name: `new-${tag}-${unique++}`, entityType: 'bench', observations: ['a', 'b', 'c'] });
/** Names create_entities (1) made at the current size, for delete_entities (1) to remove. */
export const createdOne: Record<Side, string[]> = { ours: [], reference: [] };
/** Names create_entities (100) made, removed (untimed) once its calls are measured. */
export const createdBatch: Record<Side, string[]> = { ours: [], reference: [] };

/** Deletes `names` in a few calls (untimed cleanup). */
async function deleteAll(conn: StdioConnection, names: string[]): Promise<void> {
  while (names.length > 0) await call(conn, 'delete_entities', { entityNames: names.splice(0, 1000) });
}

/**
 * Untimed, before anything is measured on a server: `rounds` rounds of every kind of call, so
 * that what follows measures both ends in their steady state (compiled by the JIT) and the first
 * op measured is not the only one paying for the warm-up. Leaves the graph as it found it.
 */
export async function warmUp(conn: StdioConnection, side: Side, n: number, rounds: number): Promise<void> {
  for (let r = 0; r < rounds; r++) {
    const name = `warm-${side}-${r}`;
    const other = `entity-${(r * 7919) % n}`;
    const relation = { from: name, to: other, relationType: 'warm' };
    await call(conn, 'create_entities', { entities: [{ name, entityType: 'bench', observations: ['a', 'b', 'c'] }] });
    await call(conn, 'add_observations', { observations: [{ entityName: other, contents: [`warm ${r}`] }] });
    await call(conn, 'delete_observations', { deletions: [{ entityName: other, observations: [`warm ${r}`] }] });
    await call(conn, 'create_relations', { relations: [relation] });
    await call(conn, 'delete_relations', { relations: [relation] });
    await call(conn, 'search_nodes', { query: `Observation ${r}-A` });
    await call(conn, 'open_nodes', { names: [other] });
    await call(conn, 'delete_entities', { entityNames: [name] });
  }
}

/** The reference re-reads (and on mutations rewrites) a ~29 MB file per call at 100k: allow it time. */
export const call = (conn: StdioConnection, name: string, args: Record<string, unknown>) =>
  callOk(conn, name, args, { timeoutMs: 600_000 });

function refCalls(n: number, small: number, mid: number, big: number): number {
  return n <= 1_000 ? small : n <= 10_000 ? mid : big;
}

export function ops(ctx: BenchContext): OpSpec[] {
  const oursCalls = ctx.scale(300, 50);
  return [
    {
      key: 'create1',
      label: 'create_entities (1)',
      record: 'small',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(60, 10), ctx.scale(20, 5), ctx.scale(5, 2))),
      run: (c, i, s) => {
        const e = newEntity(`${s}1-${i}`);
        createdOne[s].push(e.name);
        return call(c, 'create_entities', { entities: [e] });
      },
    },
    {
      key: 'create100',
      label: 'create_entities (100)',
      record: 'batch',
      calls: (s, n) => (s === 'ours' ? ctx.scale(60, 10) : refCalls(n, ctx.scale(30, 5), ctx.scale(10, 3), ctx.scale(3, 2))),
      run: (c, i, s) => {
        const entities = Array.from({ length: 100 }, () => newEntity(`${s}100-${i}`));
        for (const e of entities) createdBatch[s].push(e.name);
        return call(c, 'create_entities', { entities });
      },
      // Left in, they would make every later op of the reference run on a graph of several times the size (at 1k).
      cleanup: (c, s) => deleteAll(c, createdBatch[s]),
    },
    {
      key: 'addObs',
      label: 'add_observations (1)',
      record: 'small',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(60, 10), ctx.scale(20, 5), ctx.scale(5, 2))),
      run: (c, i, s, n) =>
        call(c, 'add_observations', { observations: [{ entityName: `entity-${(i * 7919) % n}`, contents: [`added by ${s} ${i}`] }] }),
    },
    {
      key: 'createRel',
      label: 'create_relations (1)',
      record: 'small',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(30, 5), ctx.scale(10, 3), ctx.scale(3, 2))),
      run: (c, i, s, n) =>
        call(c, 'create_relations', {
          relations: [{ from: `entity-${(i * 7919) % n}`, to: `entity-${i % n}`, relationType: `knows-${s}-${i}` }],
        }),
    },
    {
      key: 'delObs',
      label: 'delete_observations (1)',
      record: 'small',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(30, 5), ctx.scale(10, 3), ctx.scale(3, 2))),
      // Removes what add_observations added (same entity and text for the same i).
      run: (c, i, s, n) =>
        call(c, 'delete_observations', { deletions: [{ entityName: `entity-${(i * 7919) % n}`, observations: [`added by ${s} ${i}`] }] }),
    },
    {
      key: 'delRel',
      label: 'delete_relations (1)',
      record: 'small',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(30, 5), ctx.scale(10, 3), ctx.scale(3, 2))),
      run: (c, i, s, n) =>
        call(c, 'delete_relations', {
          relations: [{ from: `entity-${(i * 7919) % n}`, to: `entity-${i % n}`, relationType: `knows-${s}-${i}` }],
        }),
    },
    {
      key: 'delEnt',
      label: 'delete_entities (1)',
      record: 'small',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(30, 5), ctx.scale(10, 3), ctx.scale(3, 2))),
      // One of the entities create_entities (1) made at this size, in order (as many calls as it made).
      run: (c, _i, s) => call(c, 'delete_entities', { entityNames: [createdOne[s].shift() ?? 'none'] }),
    },
    {
      key: 'searchHit',
      label: 'search_nodes (hit)',
      calls: (s, n) => (s === 'ours' ? ctx.scale(100, 20) : refCalls(n, ctx.scale(60, 10), ctx.scale(20, 5), ctx.scale(5, 2))),
      // `observation 123-a` matches one entity (plus 1230-a… only for larger ids): a typical narrow lookup.
      run: (c, i, _s, n) => call(c, 'search_nodes', { query: `Observation ${(i * 7919) % n}-A` }),
    },
    {
      key: 'searchMiss',
      label: 'search_nodes (miss)',
      calls: (s, n) => (s === 'ours' ? ctx.scale(100, 20) : refCalls(n, ctx.scale(60, 10), ctx.scale(20, 5), ctx.scale(5, 2))),
      run: (c, i) => call(c, 'search_nodes', { query: `no such thing ${i}` }),
    },
    {
      key: 'open',
      label: 'open_nodes (3 names)',
      calls: (s, n) => (s === 'ours' ? oursCalls : refCalls(n, ctx.scale(60, 10), ctx.scale(20, 5), ctx.scale(5, 2))),
      run: (c, i, _s, n) => call(c, 'open_nodes', { names: [0, 1, 2].map((k) => `entity-${(i * 7919 + k * 101) % n}`) }),
    },
    {
      key: 'readPage',
      label: 'read_graph (limit 100)',
      calls: (s) => (s === 'ours' ? ctx.scale(100, 20) : 0),
      run: (c, i, _s, n) => {
        // Walk a few pages in: the cursor is opaque, so fetch page 1 then follow nextCursor from a cached one.
        return call(c, 'read_graph', { limit: 100, ...(pageCursor[n] && i % 2 ? { cursor: pageCursor[n] } : {}) });
      },
    },
    {
      key: 'readFull',
      label: 'read_graph (full)',
      // At 100k the answer is ~67 MB, over the SDK stdio client's 10 MB message limit: both servers' replies are refused.
      calls: (s, n) => (n >= 100_000 ? 0 : s === 'ours' ? ctx.scale(20, 5) : refCalls(n, ctx.scale(20, 5), ctx.scale(5, 2), 1)),
      run: (c) => call(c, 'read_graph', {}),
    },
  ];
}

/** A cursor deep into the graph per size, so paginated reads are not all page 1. */
export const pageCursor: Record<number, string> = {};

/** Spawn → connected → first open_nodes answered: what a user waits for when the file exists; and the RSS then. */
export async function firstAnswer(spec: SpawnSpec): Promise<{ ms: number; rss: number | undefined }> {
  const t0 = performance.now();
  const conn = await connectStdio(spec, { timeoutMs: 120_000 });
  try {
    await call(conn, 'open_nodes', { names: ['entity-1'] });
    return { ms: performance.now() - t0, rss: peakRss(conn.pid)?.current };
  } catch (error) {
    throw new Error(`${spec.label}: ${error instanceof Error ? error.message : String(error)}; stderr: ${conn.stderr().slice(-1500)}`);
  } finally {
    await conn.close();
  }
}

/** Figures per size, per op key (`create1`, `cold`, `rss`, …), per side. */
export type Figures = Record<string, Record<string, Record<Side, Stats | undefined>>>;
