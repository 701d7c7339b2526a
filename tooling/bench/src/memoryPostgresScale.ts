/**
 * Writes across replicas (issue 33 §4): 1 and 3 `mcp-server-memory --storage postgres` processes on the same
 * database and graph, each over stdio with `WRITERS` concurrent single-entity writes, rounds interleaved
 * (1, 3, 1, 3, …); the CPU each write costs (servers, PostgreSQL, the load generator, from /proc), and what the
 * database's sessions wait on meanwhile (`pg_locks`/`pg_stat_activity` sampled), so a lock that serializes
 * commits shows by name. Anchors of the same run on the same cluster: pgbench's one-row INSERT (1 and 8 clients)
 * and a bare `SELECT 1` round trip.
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type BenchContext, connectStdio, ms, ratio, type SpawnSpec, type StdioConnection, withTimeout } from './harness.js';
import { cpuTimeMs, latency } from './load.js';
import { call } from './memoryPostgresOps.js';
import { connectSql, type PgbenchResult, postgresCpuMs, runPgbench } from './postgresCluster.js';

const WRITERS = 8;

interface ReplicaRound {
  replicas: number;
  writes: number;
  seconds: number;
  perSecond: number;
  /** CPU per write, ms: the server processes together, PostgreSQL (every backend), this process (the clients). */
  cpu: { servers: number; postgres: number; clients: number };
}

interface WaitSample {
  samples: number;
  /** Samples in which a session waited for the NOTIFY lock (`object` lock on `pg_database`, object 0). */
  notifyLockWaits: number;
  /** Sessions seen per wait event (`Lock:object`, `IO:WALSync`, `LWLock:WALWrite`, …; `CPU` when running). */
  events: Record<string, number>;
}

export interface ReplicaFigures {
  rounds: ReplicaRound[];
  /** Median writes/s with 1 and with 3 replicas. */
  one: number;
  three: number;
  waits: WaitSample;
  /** Median of single `create_entities` (1) calls one after the other on one replica, ms (just before the anchors). */
  singleWriteMs: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Samples the memory servers' sessions every `everyMs` until stopped. */
function sampleWaits(url: string, everyMs: number): { stop(): Promise<WaitSample> } {
  const into: WaitSample = { samples: 0, notifyLockWaits: 0, events: {} };
  let running = true;
  const loop = (async () => {
    const sql = await connectSql(url);
    try {
      while (running) {
        const { rows } = await sql.query<{ notify: number; events: string[] | null }>(
          `SELECT (SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype = 'object'
                     AND classid = 'pg_database'::regclass AND objid = 0)::int AS notify,
                  (SELECT array_agg(coalesce(wait_event_type || ':' || wait_event, 'CPU')) FROM pg_stat_activity
                    WHERE application_name = 'mcp-server-memory' AND state = 'active') AS events`,
        );
        into.samples++;
        if (rows[0]!.notify > 0) into.notifyLockWaits++;
        for (const e of rows[0]!.events ?? []) into.events[e] = (into.events[e] ?? 0) + 1;
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    } finally {
      await sql.end();
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return into;
    },
  };
}

async function round(conns: StdioConnection[], perReplica: number, tag: string, pgPort: number): Promise<ReplicaRound> {
  const cpu0 = { servers: conns.map((c) => cpuTimeMs(c.pid) ?? 0), postgres: postgresCpuMs(pgPort), clients: process.cpuUsage() };
  const t0 = performance.now();
  await Promise.all(
    conns.flatMap((conn, r) =>
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = 0; i < perReplica / WRITERS; i++) {
          await call(conn, 'create_entities', {
            entities: [{ name: `replica-${tag}-${r}-${w}-${i}`, entityType: 'bench', observations: ['a', 'b', 'c'] }],
          });
        }
      }),
    ),
  );
  const seconds = (performance.now() - t0) / 1000;
  const writes = conns.length * WRITERS * Math.ceil(perReplica / WRITERS);
  const servers = conns.reduce((sum, c, i) => sum + ((cpuTimeMs(c.pid) ?? 0) - cpu0.servers[i]!), 0);
  const clientCpu = process.cpuUsage(cpu0.clients);
  return {
    replicas: conns.length,
    writes,
    seconds,
    perSecond: writes / seconds,
    cpu: {
      servers: servers / writes,
      postgres: (postgresCpuMs(pgPort) - cpu0.postgres) / writes,
      clients: (clientCpu.user + clientCpu.system) / 1000 / writes,
    },
  };
}

/** `rounds` of 1 replica and of 3, interleaved, each replica `perReplica` writes by `WRITERS` writers. */
async function replicaThroughput(
  spec: (replica: number) => SpawnSpec,
  url: string,
  options: { rounds: number; perReplica: number; singles: number },
): Promise<ReplicaFigures> {
  const port = Number(new URL(url).port);
  const conns: StdioConnection[] = [];
  try {
    for (let r = 0; r < 3; r++) conns.push(await connectStdio(spec(r), { timeoutMs: 120_000 }));
    // Warm-up: every replica's pool connected and its statements prepared.
    await Promise.all(conns.map((c, r) => round([c], WRITERS * 4, `warm-${r}`, port)));
    const rounds: ReplicaRound[] = [];
    const sampler = sampleWaits(url, 10);
    let waits: WaitSample;
    try {
      for (let i = 0; i < options.rounds; i++) {
        for (const n of [1, 3]) {
          const run = round(conns.slice(0, n), options.perReplica, `${i}-${n}`, port);
          rounds.push(await withTimeout(run, 300_000, `${n} replica(s), round ${i}`));
        }
      }
    } finally {
      waits = await sampler.stop();
    }
    const rate = (n: number) => median(rounds.filter((r) => r.replicas === n).map((r) => r.perSecond));
    let i = 0;
    const single = await latency(
      () =>
        call(conns[0]!, 'create_entities', { entities: [{ name: `single-${i++}`, entityType: 'bench', observations: ['a', 'b', 'c'] }] }),
      options.singles,
      { warmup: Math.ceil(options.singles / 10) },
    );
    return { rounds, one: rate(1), three: rate(3), waits, singleWriteMs: single.median };
  } catch (error) {
    const tails = conns.map((c, i) => `replica ${i}: ${c.stderr().slice(-800)}`).join('\n');
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tails}`);
  } finally {
    await Promise.all(conns.map((c) => c.close()));
  }
}

export interface Anchors {
  /** Median `SELECT 1` on an open connection, ms. */
  roundTripMs: number;
  /** pgbench, one single-row INSERT per transaction, 1 and `WRITERS` clients. */
  one: PgbenchResult;
  eight: PgbenchResult;
  /** The same INSERT with a `pg_notify` in its statement (what every write did before 2026-12-02), `WRITERS` clients. */
  eightNotifying: PgbenchResult;
}

/** The floors on the same cluster, in the database `url` names. */
async function writeAnchors(url: string, seconds: number): Promise<Anchors> {
  const sql = await connectSql(url);
  let roundTripMs: number;
  try {
    await sql.query('CREATE TABLE IF NOT EXISTS bench_pgbench_floor (id bigint GENERATED ALWAYS AS IDENTITY, v text)');
    for (let i = 0; i < 50; i++) await sql.query('SELECT 1');
    const times: number[] = [];
    for (let i = 0; i < 500; i++) {
      const t0 = performance.now();
      await sql.query('SELECT 1');
      times.push(performance.now() - t0);
    }
    roundTripMs = median(times);
  } finally {
    await sql.end();
  }
  const script = "INSERT INTO bench_pgbench_floor (v) VALUES ('x');\n";
  const one = await runPgbench(url, { clients: 1, seconds, script });
  const eight = await runPgbench(url, { clients: WRITERS, seconds, script });
  const eightNotifying = await runPgbench(url, {
    clients: WRITERS,
    seconds,
    script: "WITH i AS (INSERT INTO bench_pgbench_floor (v) VALUES ('x') RETURNING 1) SELECT pg_notify('bench_floor', 'x') FROM i;\n",
  });
  return { roundTripMs, one, eight, eightNotifying };
}

const SCALE_GOAL = { replicas: 2.5, singleWrite: 2 };

const cpuCell = (r: ReplicaRound) => `${ms(r.cpu.servers)} + ${ms(r.cpu.postgres)} + ${ms(r.cpu.clients)}`;

/** Runs the replica rounds and the anchors on the database `url`, prints them and judges both goals. */
export async function measureScale(
  ctx: BenchContext,
  spec: (replica: number) => SpawnSpec,
  url: string,
): Promise<{ replicas: ReplicaFigures; anchors: Anchors }> {
  const replicas = await replicaThroughput(spec, url, {
    rounds: ctx.scale(3, 1),
    perReplica: ctx.scale(1200, 400),
    singles: ctx.scale(200, 60),
  });
  const anchors = await writeAnchors(url, ctx.scale(5, 3));
  const busiest = Object.entries(replicas.waits.events)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([event, k]) => `${event} ${((100 * k) / Math.max(1, replicas.waits.samples)).toFixed(0)}`)
    .join(', ');
  ctx.table({
    title: `memory on PostgreSQL: create_entities (1) from 1 and 3 replicas × ${WRITERS} writers, one database and graph`,
    headers: ['replicas', 'round', 'writes', 'writes/s', 'CPU ms/write: servers + postgres + clients'],
    rows: replicas.rounds.map((r, i) => [r.replicas, Math.floor(i / 2) + 1, r.writes, Math.round(r.perSecond), cpuCell(r)]),
    notes: [
      `median writes/s: 1 replica ${Math.round(replicas.one)}, 3 replicas ${Math.round(replicas.three)} (${(replicas.three / replicas.one).toFixed(2)}×); pgbench, one-row INSERT, ${WRITERS} clients: ${Math.round(anchors.eight.tps)} tps (${Math.round(anchors.eightNotifying.tps)} with a pg_notify in the INSERT's statement), 1 client ${Math.round(anchors.one.tps)} tps`,
      `sessions of the servers sampled every 10 ms (${replicas.waits.samples} samples): waiting for the NOTIFY lock in ${((100 * replicas.waits.notifyLockWaits) / Math.max(1, replicas.waits.samples)).toFixed(0)}% of samples; busiest states, sessions per 100 samples: ${busiest}`,
      `${cpus().length} cores for everything: servers, PostgreSQL and the clients; CPU per write from /proc (servers' threads, every PostgreSQL process, this process)`,
    ],
  });
  const scaleRatio = replicas.three / replicas.one;
  ctx.check(
    `postgres: 3 replicas ≥ ${SCALE_GOAL.replicas}× one replica's writes/s (${WRITERS} writers each)`,
    scaleRatio >= SCALE_GOAL.replicas,
    `${scaleRatio.toFixed(2)}× (${Math.round(replicas.three)} vs ${Math.round(replicas.one)} writes/s)`,
  );
  const floor = anchors.one.latencyMs + anchors.roundTripMs;
  ctx.print(
    `anchors: SELECT 1 round trip ${ms(anchors.roundTripMs)}; pgbench one-row INSERT commit ${ms(anchors.one.latencyMs)} (1 client), ${ms(anchors.eight.latencyMs)} (${WRITERS} clients)`,
  );
  ctx.check(
    `postgres: a single write ≤ ${SCALE_GOAL.singleWrite}× (pgbench commit + round trip)`,
    replicas.singleWriteMs <= SCALE_GOAL.singleWrite * floor,
    `${ratio(replicas.singleWriteMs, floor)} (create_entities (1), one after the other on one replica, just before pgbench: ${ms(replicas.singleWriteMs)} vs ${ms(anchors.one.latencyMs)} + ${ms(anchors.roundTripMs)})`,
  );
  return { replicas, anchors };
}
