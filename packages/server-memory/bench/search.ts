/**
 * Search microbench: the trigram index against a linear scan over the same graph, at 1k, 10k and
 * 100k entities shaped as in the main memory bench (3 observations and 1 relation each).
 *
 *   pnpm bench:search [sizes…]      (from packages/server-memory: tsx --expose-gc bench/search.ts; default 1000 10000 100000)
 *
 * Prints, per size: the CPU time of loading the entities into the graph, the index build (paid by the first
 * search), search latency p50/p99 per query kind for the index and for the scan, the cost of a
 * write once the index exists, and (with --expose-gc) the heap the graph and its index hold.
 * Not a test: numbers vary with the machine. `pnpm bench -- --only memory` times the whole server.
 */
import { type Entity, Graph, type Relation } from '../src/graph.js';
import { SearchIndex } from '../src/search/searchIndex.js';

const gc = (globalThis as { gc?: () => void }).gc;

/** Parsed from JSON lines, as a load gets them (every string its own). */
function entities(n: number): Entity[] {
  return Array.from({ length: n }, (_, i) =>
    JSON.parse(
      JSON.stringify({
        name: `entity-${i}`,
        entityType: `type-${i % 20}`,
        observations: [
          `observation ${i}-a about the project schedule`,
          `observation ${i}-b: prefers short answers`,
          `observation ${i}-c met on day ${i % 365}`,
        ],
      }),
    ),
  );
}

function relations(n: number): Relation[] {
  return Array.from({ length: n }, (_, i) =>
    JSON.parse(JSON.stringify({ from: `entity-${i}`, to: `entity-${(i + 1) % n}`, relationType: 'works_with' })),
  );
}

/** The search before the index: one lower-cased haystack per entity (cached), `includes` on each. */
function linearScan(list: readonly Entity[]): (query: string) => Entity[] {
  const hays = list.map((e) => [e.name, e.entityType, ...e.observations].map((f) => f.toLowerCase()).join('\u0000'));
  return (query) => {
    const q = query.toLowerCase();
    const out: Entity[] = [];
    for (let i = 0; i < list.length; i++) if (hays[i]!.includes(q)) out.push(list[i]!);
    return out;
  };
}

/** CPU time of this process in ms (steadier than wall time on a shared machine). */
const cpu = () => process.cpuUsage().user / 1000;

const ms = (t: number) => `${t.toFixed(t < 10 ? 3 : 1)} ms`;

function percentiles(run: (i: number) => unknown, rounds: number): { p50: number; p99: number } {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    run(i);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(rounds * 0.5)]!, p99: times[Math.min(rounds - 1, Math.floor(rounds * 0.99))]! };
}

const queries: [string, (n: number, i: number) => string][] = [
  ['hit (1 entity)', (n, i) => `Observation ${(i * 7919) % n}-A`],
  ['miss', (_n, i) => `no such thing ${i}`],
  ['name prefix', (n, i) => `ENTITY-${(i * 7919) % n}`],
  ['2 chars, miss', () => 'zq'],
  ['2 chars, 1 in 20', () => '7-'],
  ['type (1 in 20)', (_n, i) => `type-${i % 20}`],
];

function heapMb(): number {
  gc?.();
  gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return (heapUsed + arrayBuffers) / 1e6; // the index's typed arrays live outside the JS heap
}

for (const n of process.argv.slice(2).map(Number).filter(Boolean).length ? process.argv.slice(2).map(Number) : [1000, 10_000, 100_000]) {
  const before = heapMb();
  let list = entities(n);
  let rels = relations(n);
  const graph = new Graph();
  let t = cpu();
  for (const e of list) graph.loadEntity(e);
  const loadEntities = cpu() - t;
  t = cpu();
  for (const r of rels) graph.loadRelation(r);
  const loadRelations = cpu() - t;
  // The graph keeps the parsed strings and observation arrays; the parsed objects go.
  list = [];
  rels = [];
  const graphOnly = heapMb() - before;
  t = cpu();
  graph.prepareSearch();
  const build = cpu() - t;
  const withIndex = heapMb() - before;
  list = [...graph.entityList()];
  const scan = linearScan(list);
  // Matching alone, index against scan (graph.search adds the relations and the copy of each result).
  const index = new SearchIndex<Entity & { sid: number }>((e) => e.observations);
  for (const e of list) index.add({ ...e, sid: -1 });
  index.prepare();
  const rounds = n >= 100_000 ? 200 : 1000;

  console.log(`\n${n} entities, ${n} relations`);
  console.log(
    `  CPU: loadEntity ×${n}: ${ms(loadEntities)} (${((loadEntities / n) * 1000).toFixed(2)} µs each); loadRelation ×${n}: ${ms(loadRelations)}`,
  );
  console.log(`  CPU: index build (first search): ${ms(build)}`);
  if (gc) console.log(`  heap + array buffers: graph ${graphOnly.toFixed(1)} MB, graph + index ${withIndex.toFixed(1)} MB`);
  console.log('  matching: query          index p50 / p99           scan p50 / p99          results   graph.search p50');
  for (const [label, make] of queries) {
    const results = graph.search(make(n, 1)).totalEntities;
    if (scan(make(n, 1)).length !== results || index.search(make(n, 1)).length !== results) {
      throw new Error(`index and scan disagree on ${make(n, 1)}`);
    }
    const indexed = percentiles((i) => index.search(make(n, i)), rounds);
    const scanned = percentiles((i) => scan(make(n, i)), Math.min(rounds, 100));
    const whole = percentiles((i) => graph.search(make(n, i)), Math.min(rounds, 100));
    console.log(
      `  ${label.padEnd(22)} ${ms(indexed.p50).padStart(10)} / ${ms(indexed.p99).padEnd(12)} ${ms(scanned.p50).padStart(10)} / ${ms(scanned.p99).padEnd(12)} ${String(results).padEnd(9)} ${ms(whole.p50)}`,
    );
  }
  // Writes once the index exists: each pays its share of the index (text, trigrams).
  let k = 0;
  const create = percentiles(
    () => graph.createEntities([{ name: `new-${k++}`, entityType: 'bench', observations: ['added by the bench', 'second', 'third'] }]),
    1000,
  );
  const add = percentiles((i) => graph.addObservations([{ entityName: `entity-${(i * 7919) % n}`, contents: [`added ${i}`] }]), 1000);
  console.log(
    `  writes with the index: create_entities(1) p50 ${ms(create.p50)} p99 ${ms(create.p99)}; add_observations(1) p50 ${ms(add.p50)} p99 ${ms(add.p99)}`,
  );
  const after = percentiles((i) => graph.search(queries[0]![1](n, i)), rounds);
  console.log(`  hit after 2000 writes: p50 ${ms(after.p50)} p99 ${ms(after.p99)}`);
}
