/**
 * The memory acceptance suite through a round-robin proxy without session affinity, in front of three
 * `--stateless` replicas of the built bin on one graph of the run's PostgreSQL: once with the 2025-era client
 * (the v1 SDK over Streamable HTTP) and once with the v2 client pinned to 2026-07-28. Each call of a test may land
 * on another replica. The input-caps test goes through a second proxy, over three replicas started with its limits.
 *
 * Each test starts from an empty graph: the graph is emptied through a store on it (in this process) before each
 * session, and the same store seeds and checks the graph where a test does so. The tests run one at a time.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { connectHttpV2, type V2HttpClient } from '@mcpkit/protocol-core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GraphStore, Limits } from '../../src/server.js';
import { graphChannel } from '../../src/store/postgres/listener.js';
import { openPostgresStore } from '../../src/store/postgres/postgresStore.js';
import { CAPS, call, testAcceptanceOn, text } from '../acceptanceSuite.js';
import { type AcceptanceSession, type AcceptanceTarget, listenFeed } from '../acceptanceTarget.js';
import { postgresUrl } from './fixture.js';
import { type Balancer, httpClient, type Replica, startBalancer, startReplica } from './replicas.js';

const bin = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const GRAPH = `acceptance-${randomUUID()}`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const capsFlags = (l: Limits) => [
  '--max-name-length',
  String(l.maxNameLength),
  '--max-observation-length',
  String(l.maxObservationLength),
  '--max-items-per-call',
  String(l.maxItemsPerCall),
];

/** Three stateless replicas with `flags` behind a new round-robin proxy. */
async function replicaSet(url: string, flags: string[], replicas: Replica[]): Promise<Balancer> {
  const balancer = await startBalancer();
  // The proxy passes the Host header on: each replica must accept the proxy's address.
  const args = ['--stateless', '--allowed-host', `127.0.0.1:${balancer.port}`, ...flags];
  const env = { MEMORY_STORAGE: 'postgres', MEMORY_DATABASE_URL: url, MEMORY_GRAPH: GRAPH };
  const started = await Promise.all([0, 1, 2].map(() => startReplica(bin, args, env)));
  replicas.push(...started);
  balancer.targets.push(...started.map((r) => r.endpoint));
  return balancer;
}

/** Deletes every relation and entity of the graph. */
async function empty(store: GraphStore): Promise<void> {
  const { entities, relations } = await store.readGraph();
  await store.deleteRelations(relations);
  await store.deleteEntities(entities.map((e) => e.name));
}

// Without a PostgreSQL (a laptop without one) this is skipped; under CI the global setup fails the run instead.
describe.skipIf(postgresUrl() === undefined)(
  'acceptance through a round-robin proxy over 3 stateless replicas (built bin, PostgreSQL)',
  () => {
    const url = postgresUrl()!;
    const replicas: Replica[] = [];
    const balancers: Balancer[] = [];
    let plain: Balancer;
    let capped: Balancer;
    let store: GraphStore;
    let admin: pg.Client;

    beforeAll(async () => {
      store = openPostgresStore({ url, graph: GRAPH, poolSize: 2 });
      admin = new pg.Client(url);
      await admin.connect();
      [plain, capped] = await Promise.all([replicaSet(url, [], replicas), replicaSet(url, capsFlags(CAPS), replicas)]);
      balancers.push(plain, capped);
    });

    afterAll(async () => {
      await Promise.allSettled(replicas.map((r) => r.kill()));
      await Promise.allSettled(balancers.map((b) => b[Symbol.asyncDispose]()));
      await store?.close();
      await admin?.end();
    });

    /** The proxy of the replicas started with `limits`: only the suite's input caps have one. */
    function endpointFor(limits?: Partial<Limits>): string {
      if (!limits) return plain.endpoint;
      if (JSON.stringify(limits) !== JSON.stringify(CAPS))
        throw new Error(`no replicas were started with the limits ${JSON.stringify(limits)}`);
      return capped.endpoint;
    }

    /**
     * Resolves once a replica LISTENs on the graph's channel on a connection opened since `since` (the database's
     * clock): a listen stream is acknowledged before its replica's LISTEN connection is up, and a write through
     * another replica before then is not heard.
     */
    async function listenerUp(since: Date): Promise<void> {
      await expect
        .poll(
          async () =>
            (
              await admin.query<{ n: number }>(
                `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1 AND state = 'idle' AND backend_start >= $2`,
                [`LISTEN ${graphChannel(GRAPH)}`, since],
              )
            ).rows[0]!.n,
        )
        .toBeGreaterThan(0);
    }

    const acrossProcesses = {
      // A NOTIFY goes from the writing replica through PostgreSQL to the listening one. Kept: the suite's must-not
      // ("no update after a no-op") across processes, whose updates all look the same: no marker to wait for.
      settle: () => sleep(500),
      arrived: (check: () => void) => vi.waitFor(check, { timeout: 10_000, interval: 50 }),
    };

    const v1Target: AcceptanceTarget = {
      era: '2025-11-25',
      hearsUpdates: false, // a 2025 client of stateless replicas has no session, hence no stream to hear on
      ...acrossProcesses,
      async session(limits): Promise<AcceptanceSession> {
        const endpoint = endpointFor(limits);
        await empty(store);
        const client = await httpClient(endpoint);
        return { client, store, [Symbol.asyncDispose]: () => client.close() };
      },
    };

    const v2Target: AcceptanceTarget = {
      era: '2026-07-28',
      hearsUpdates: true,
      ...acrossProcesses,
      async session(limits): Promise<AcceptanceSession> {
        const endpoint = endpointFor(limits);
        await empty(store);
        const conn: V2HttpClient = await connectHttpV2(endpoint, { mode: '2026-07-28' });
        expect(conn.client.getProtocolEra()).toBe('modern');
        return {
          client: conn.client,
          store,
          updates: () => {
            let since: Date | undefined;
            const feed = listenFeed(conn.client, () => listenerUp(since!));
            const subscribe = feed.subscribe;
            feed.subscribe = async () => {
              since = (await admin.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0]!.now;
              await subscribe();
            };
            return feed;
          },
          [Symbol.asyncDispose]: () => conn[Symbol.asyncDispose](),
        };
      },
    };

    testAcceptanceOn('proxy, 2025-11-25 (v1 SDK client)', v1Target);
    testAcceptanceOn('proxy, 2026-07-28 (v2 client)', v2Target);

    it('text with quotes, backslashes, % and _ and long text are stored and searched literally through the tools; NUL is refused by name', async () => {
      await using s = await v2Target.session();
      // As long as the default caps allow: 1000 characters for a name, 10000 for an observation.
      const long = `${'ü'.repeat(996)}-end`;
      const tricky = ['100%', '100 percent', 'a_b', 'axb', 'back\\slash', 'backslash', `it's "quoted"`, '$1', long];
      const created = await call(s.client, 'create_entities', {
        entities: tricky.map((name) => ({ name, entityType: 't', observations: [`about ${name}`.slice(0, 1000)] })),
      });
      await call(s.client, 'add_observations', { observations: [{ entityName: 'axb', contents: [`${'y'.repeat(9994)}needle`] }] });
      expect(created.isError).toBeFalsy();
      const found = async (query: string) =>
        ((await call(s.client, 'search_nodes', { query })).structuredContent!.entities as { name: string }[]).map((e) => e.name);
      expect(await found('%')).toEqual(['100%']);
      expect(await found('a_b')).toEqual(['a_b']);
      expect(await found('K\\S')).toEqual(['back\\slash']);
      expect(await found(`IT'S "Q`)).toEqual([`it's "quoted"`]);
      expect(await found('$1')).toEqual(['$1']);
      expect(await found('Ü-END')).toEqual([long]);
      expect(await found('yNEEDLE')).toEqual(['axb']);
      expect((await store.readGraph()).entities.map((e) => e.name)).toEqual(tricky);
      const nul = await call(s.client, 'create_entities', { entities: [{ name: 'bad\u0000name', entityType: 't', observations: [] }] });
      expect(nul.isError).toBe(true);
      expect(text(nul)).toMatch(/^entities\[0\]\.name contains a NUL character/);
      expect((await store.readGraph()).entities).toHaveLength(tricky.length);
    });
  },
);
