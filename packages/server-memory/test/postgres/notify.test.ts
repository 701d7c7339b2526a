// @module-tag slow
/** Change notifications across processes (LISTEN/NOTIFY): two stores with their own pools stand for two replicas. */
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { openPostgresDatabase } from '../../src/store/postgres/database.js';
import { graphChannel } from '../../src/store/postgres/listener.js';
import { openPostgresGraph, openPostgresStore } from '../../src/store/postgres/postgresStore.js';
import type { GraphChange } from '../../src/store/types.js';
import { freshGraph, postgresUrl } from './fixture.js';
import { startRelay } from './proxy.js';

const url = postgresUrl();
const entity = (name: string) => ({ name, entityType: 't', observations: [] });

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 20 },
  );
}

/** How many sessions LISTEN on `graph`'s channel (their last statement, idle); `UNLISTEN` for the ones that stopped. */
async function listeners(graph: string, statement = 'LISTEN'): Promise<number> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1 AND state = 'idle'`,
      [`${statement} ${graphChannel(graph)}`],
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

describe.skipIf(!url)('PostgreSQL store: change notifications (LISTEN/NOTIFY)', () => {
  it('a watching store hears committed changes of other stores on its graph, once each, and nothing else', async () => {
    const graph = freshGraph();
    const markGraph = freshGraph();
    // a's process also follows a marker graph on the same LISTEN connection: notices arrive there in commit order,
    // so once the marker's notice has, every notice committed before it has too.
    const db = openPostgresDatabase({ url: url!, poolSize: 2 });
    const a = openPostgresGraph(db, graph);
    const marker = openPostgresGraph(db, markGraph);
    const b = openPostgresStore({ url: url!, graph, poolSize: 2 });
    const other = openPostgresStore({ url: url!, graph: freshGraph(), poolSize: 2 });
    const markWriter = openPostgresStore({ url: url!, graph: markGraph, poolSize: 1 });
    const heard: GraphChange[] = [];
    a.onChange((change) => heard.push(change));
    let marks = 0;
    marker.onChange(() => marks++);
    /** Resolves once a's LISTEN connection has every notice committed before this call. */
    const flushed = async () => {
      const seen = marks;
      await markWriter.createEntities([entity(`mark ${seen}`)]);
      await until(() => marks === seen + 1, 'the marker notice');
    };
    /** Sessions whose last statement LISTENs or UNLISTENs on either channel: the process's LISTEN connection. */
    const listening = async () =>
      (await listeners(graph)) +
      (await listeners(graph, 'UNLISTEN')) +
      (await listeners(markGraph)) +
      (await listeners(markGraph, 'UNLISTEN'));
    try {
      await Promise.all([a.readGraph(), marker.readGraph()]); // the schema exists before anyone listens
      expect(await listeners(graph)).toBe(0); // nothing listens until someone watches
      const unwatchMarker = marker.watch();
      await marker.listening!();
      const unwatch = a.watch();
      await until(async () => (await listeners(graph)) === 1, 'the LISTEN connection');

      await b.createEntities([entity('B1')]);
      await until(() => heard.length === 1, 'the first notice');
      expect(heard).toEqual([{ source: 'external' }]);

      // No notice for a write that changed nothing, one that failed (rolled back), or another graph.
      await b.createEntities([entity('B1')]);
      await expect(b.addObservations([{ entityName: 'nobody', contents: ['x'] }])).rejects.toThrow(/not found/);
      await other.createEntities([entity('elsewhere')]);
      // Its own write: told once, at once, as local (its own notice is skipped).
      await a.createEntities([entity('A1')]);
      expect(heard).toEqual([{ source: 'external' }, { source: 'local' }]);
      await b.deleteEntities(['B1']);
      await until(() => heard.length === 3, 'the delete notice');
      await flushed();
      expect(heard).toEqual([{ source: 'external' }, { source: 'local' }, { source: 'external' }]);

      // Released: the connection closes and nothing more is heard.
      unwatch();
      unwatchMarker();
      await until(async () => (await listening()) === 0, 'the LISTEN connection to close');
      // No session listens on the channel any more (above): nothing can bring a notice of this write.
      await b.createEntities([entity('B2')]);
      expect(heard).toHaveLength(3);
    } finally {
      await Promise.all([a.close(), marker.close(), b.close(), other.close(), markWriter.close()]);
      await db.close();
    }
  });

  it('listening() resolves once the LISTEN is in effect, so a change made right after it is heard', async () => {
    const graph = freshGraph();
    const a = openPostgresStore({ url: url!, graph, poolSize: 2 });
    const b = openPostgresStore({ url: url!, graph, poolSize: 2 });
    const heard: GraphChange[] = [];
    a.onChange((change) => heard.push(change));
    try {
      await Promise.all([a.readGraph(), b.readGraph()]); // b's pool is connected: its write is quicker than a new connection
      await a.listening!(); // nothing watched: at once
      expect(await listeners(graph)).toBe(0);
      for (let round = 0; round < 3; round++) {
        const unwatch = a.watch();
        await a.listening!();
        await b.createEntities([entity(`R${round}`)]); // at once: no time for a LISTEN still on its way
        await until(() => heard.length === round + 1, `the notice of round ${round}`, 3000);
        expect(await listeners(graph)).toBe(1);
        unwatch();
        await until(async () => (await listeners(graph)) === 0, 'the LISTEN connection to close');
      }
      expect(heard).toEqual([{ source: 'external' }, { source: 'external' }, { source: 'external' }]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('one LISTEN connection however many watch handles, closed with the store', async () => {
    const graph = freshGraph();
    const a = openPostgresStore({ url: url!, graph, poolSize: 2 });
    const b = openPostgresStore({ url: url!, graph, poolSize: 2 });
    const heard: GraphChange[] = [];
    a.onChange((change) => heard.push(change));
    try {
      const handles = [a.watch(), a.watch(), a.watch()];
      await until(async () => (await listeners(graph)) === 1, 'the LISTEN connection');
      handles[0]!();
      handles[0]!(); // twice: still counts once
      handles[1]!(); // one handle is still held: the connection stays, and hears
      await b.createEntities([entity('still heard')]);
      await until(() => heard.length === 1, 'a notice on the connection still held');
      expect(await listeners(graph)).toBe(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    await until(async () => (await listeners(graph)) === 0, 'the LISTEN connection to close');
  });

  it('reconnects after a database outage, listens again, and reports one change for what it may have missed', async () => {
    const target = new URL(url!);
    await using relay = await startRelay({ host: target.hostname, port: Number(target.port) });
    const viaRelay = new URL(url!);
    viaRelay.port = String(relay.port);
    const graph = freshGraph();
    const a = openPostgresStore({ url: viaRelay.toString(), graph, poolSize: 2 });
    const b = openPostgresStore({ url: url!, graph, poolSize: 2 });
    const heard: GraphChange[] = [];
    a.onChange((change) => heard.push(change));
    try {
      await a.readGraph();
      const unwatch = a.watch();
      await until(async () => (await listeners(graph)) === 1, 'the LISTEN connection');

      relay.refuse();
      await until(async () => (await listeners(graph)) === 0, 'the cut connection to be gone');
      await a.listening!(); // does not wait for the database to come back: the reconnect reports the gap
      await b.createEntities([entity('while-down')]); // its notice reaches nobody
      // A second reconnect is tried only once the first has failed and been handled: neither may report a change.
      await until(() => relay.refused >= 2, 'two failed reconnects');
      expect(heard).toEqual([]);
      await relay.up();
      await until(() => heard.length === 1, 'the change reported after the reconnect');
      expect(heard).toEqual([{ source: 'external' }]);
      expect(await listeners(graph)).toBe(1);

      await b.createEntities([entity('after')]);
      await until(() => heard.length === 2, 'a notice on the new connection');
      unwatch();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("one process's graphs share one LISTEN connection: each hears its own graph, an unwatched one is UNLISTENed, an outage reports one change to each watched", async () => {
    const target = new URL(url!);
    await using relay = await startRelay({ host: target.hostname, port: Number(target.port) });
    const viaRelay = new URL(url!);
    viaRelay.port = String(relay.port);
    const [graph1, graph2] = [freshGraph(), freshGraph()];
    const db = openPostgresDatabase({ url: viaRelay.toString(), poolSize: 2 });
    const one = openPostgresGraph(db, graph1);
    const two = openPostgresGraph(db, graph2);
    const writer1 = openPostgresStore({ url: url!, graph: graph1, poolSize: 1 });
    const writer2 = openPostgresStore({ url: url!, graph: graph2, poolSize: 1 });
    const heard = { one: [] as GraphChange[], two: [] as GraphChange[] };
    one.onChange((change) => heard.one.push(change));
    two.onChange((change) => heard.two.push(change));
    try {
      await one.readGraph();
      const unwatchOne = one.watch();
      const unwatchTwo = two.watch();
      await Promise.all([one.listening!(), two.listening!()]);
      // One session LISTENs on both channels: its last statement is one of the two LISTENs.
      expect((await listeners(graph1)) + (await listeners(graph2))).toBe(1);

      await writer1.createEntities([entity('in one')]);
      await until(() => heard.one.length === 1, "graph one's notice");
      await writer2.createEntities([entity('in two')]);
      await until(() => heard.two.length === 1, "graph two's notice");
      expect(heard.one).toHaveLength(1);

      unwatchOne();
      await until(async () => (await listeners(graph1, 'UNLISTEN')) === 1, 'the UNLISTEN of graph one');
      await writer1.createEntities([entity('unheard')]);
      await writer2.createEntities([entity('heard')]);
      // Notices arrive in commit order on the connection: graph two's second one comes after anything of graph one.
      await until(() => heard.two.length === 2, "graph two's second notice");
      expect(heard.one).toEqual([{ source: 'external' }]);

      await relay.down();
      await writer2.createEntities([entity('while-down')]);
      await relay.up();
      await until(() => heard.two.length === 3, 'the change reported after the reconnect');
      expect(heard.two.at(-1)).toEqual({ source: 'external' });
      expect(heard.one).toHaveLength(1); // not watched: told nothing

      const again = one.watch();
      await one.listening!();
      await writer1.createEntities([entity('heard again')]);
      await until(() => heard.one.length === 2, "graph one's notice after watching again");
      again();
      unwatchTwo();
    } finally {
      await Promise.all([one.close(), two.close(), writer1.close(), writer2.close()]);
      await db.close();
    }
  });
});
