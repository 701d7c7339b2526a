/**
 * PostgreSQL paging bench: a `read_graph` / `search_nodes` page of 100 through the store, against the SQL the
 * store ran before keyset paging (count(*) of the whole result, then OFFSET), with the floors of the same run:
 * a bare `SELECT 1` round trip and a pgbench-style one-row INSERT + commit.
 *
 *   tsx bench/pgPages.ts [sizes…]      (default 10000 1000000; starts its own PostgreSQL, as the tests do)
 *
 * Graph: N entities (3 observations, type `type-<i % 5>`, so `type-3` matches N/5) and N relations, loaded with
 * one INSERT … generate_series each. Medians of 25 rounds. Not a test: figures vary with the machine's load.
 */
import { embeddedBinaries, startPostgres, systemBinaries } from '@mcpkit/test-utils/postgres';
import pg from 'pg';
import { openPostgresStore } from '../src/store/postgres/postgresStore.js';

const ROUNDS = 25;
async function median(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(ROUNDS / 2)]!;
}
const ms = (t: number) => `${t.toFixed(t < 10 ? 2 : 1)} ms`;

const binaries = systemBinaries() ?? (await embeddedBinaries());
if (!binaries) throw new Error('no PostgreSQL binaries');
await using server = await startPostgres(binaries);
const sizes = process.argv.slice(2).map(Number);
const client = new pg.Client({ connectionString: server.url });
await client.connect();
await client.query('CREATE TABLE floor_insert (id bigint GENERATED ALWAYS AS IDENTITY, v text)');
const roundTrip = await median(() => client.query('SELECT 1'));
const insert = await median(() => client.query("INSERT INTO floor_insert (v) VALUES ('x')"));
console.log(`floors: SELECT 1 ${ms(roundTrip)}, one-row INSERT+commit ${ms(insert)}`);

for (const n of sizes.length ? sizes : [10_000, 1_000_000]) {
  const graph = `bench-${n}`;
  const store = openPostgresStore({ url: server.url, graph, poolSize: 2, timeoutMs: 600_000 });
  await store.readGraph({ limit: 1 }); // migrates
  const load = performance.now();
  await client.query(
    `INSERT INTO memory_entities (graph, name, entity_type, observations)
     SELECT $1, 'entity-' || i, 'type-' || (i % 5), ARRAY['observation ' || i || '-a about the project schedule', 'observation ' || i || '-b: prefers short answers', 'observation ' || i || '-c met on day ' || (i % 365)]
     FROM generate_series(0, $2 - 1) AS i`,
    [graph, n],
  );
  await client.query(
    `INSERT INTO memory_relations (graph, from_name, to_name, relation_type)
     SELECT $1, 'entity-' || i, 'entity-' || ((i + 1) % $2), 'works_with' FROM generate_series(0, $2 - 1) AS i`,
    [graph, n],
  );
  await client.query('ANALYZE memory_entities; ANALYZE memory_relations');
  console.log(`\n${n} entities + ${n} relations loaded in ${((performance.now() - load) / 1000).toFixed(1)} s`);

  const oldRead = (offset: number) => async () => {
    await client.query(
      'SELECT (SELECT count(*) FROM memory_entities WHERE graph = $1) AS e, (SELECT count(*) FROM memory_relations WHERE graph = $1) AS r',
      [graph],
    );
    await client.query('SELECT name, entity_type, observations FROM memory_entities WHERE graph = $1 ORDER BY seq OFFSET $2 LIMIT 100', [
      graph,
      offset,
    ]);
  };
  const first = await store.readGraph({ offset: 0, limit: 100 });
  const deep = (
    await client.query<{ seq: string }>('SELECT seq FROM memory_entities WHERE graph = $1 ORDER BY seq OFFSET $2 LIMIT 1', [
      graph,
      Math.floor(n / 2),
    ])
  ).rows[0]!.seq;
  const totals = { entities: first.totalEntities, relations: first.totalRelations };
  const rows: [string, number][] = [
    ['read_graph limit 100, first page (totals counted, bounded)', await median(() => store.readGraph({ offset: 0, limit: 100 }))],
    [
      'read_graph limit 100, cursor page at n/2 (key + carried totals)',
      await median(() => store.readGraph({ offset: n / 2, limit: 100, after: `e:${deep}`, totals })),
    ],
    ['before: count(*) + OFFSET 0 LIMIT 100', await median(oldRead(0))],
    ['before: count(*) + OFFSET n/2 LIMIT 100', await median(oldRead(n / 2))],
  ];
  const s1 = await store.searchNodes('type-3', { offset: 0, limit: 100 });
  const sTotals = { entities: s1.totalEntities, relations: s1.totalRelations };
  rows.push(
    ['search_nodes "type-3" (n/5 match) limit 100, first page', await median(() => store.searchNodes('type-3', { offset: 0, limit: 100 }))],
    [
      'search_nodes "type-3" limit 100, cursor page',
      await median(() => store.searchNodes('type-3', { offset: 100, limit: 100, after: s1.nextAfter!, totals: sTotals })),
    ],
  );
  if (n <= 200_000)
    rows.push([
      'before: search_nodes "type-3" limit 100 (every match fetched)',
      await median(() => store.searchNodes('type-3', { offset: 100, limit: 100 })),
    ]);
  console.log(`totals reported: read_graph ${JSON.stringify(totals)}, search ${JSON.stringify(sTotals)}`);
  for (const [what, t] of rows) console.log(`  ${what}: ${ms(t)} (${(t / roundTrip).toFixed(1)}× SELECT 1)`);
  await store.close();
}
await client.end();
