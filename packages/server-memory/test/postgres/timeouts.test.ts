// @module-tag slow
/** A database that accepts connections but hangs, or holds a lock too long: each call fails by its time-out, clearly. */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/postgresStore.js';
import { freshGraph, postgresUrl } from './fixture.js';
import { startRelay } from './proxy.js';

const url = postgresUrl();
const entity = (name: string) => ({ name, entityType: 't', observations: [] });

/** Bounds as a factor of the 1 s --database-timeout, the contract: a loaded machine runs late, never five timeouts late. */
const WITHIN_TIMEOUT = 1000 * 5;

/** The error of `call` and how long it took. */
async function timed(call: () => Promise<unknown>): Promise<{ error: Error; ms: number }> {
  const started = Date.now();
  const error = await call().then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: Error) => e,
  );
  return { error, ms: Date.now() - started };
}

describe.skipIf(!url)('PostgreSQL store: time-outs', () => {
  it('a database that stops answering fails each call after --database-timeout, then recovers', async () => {
    const target = new URL(url!);
    await using relay = await startRelay({ host: target.hostname, port: Number(target.port) });
    const viaRelay = new URL(url!);
    viaRelay.port = String(relay.port);
    const graph = freshGraph();
    const store = openPostgresStore({ url: viaRelay.toString(), graph, poolSize: 2, timeoutMs: 1000 });
    try {
      await store.createEntities([entity('before')]);
      relay.stall(); // the pooled connection and any new one now hang

      const read = await timed(() => store.readGraph());
      expect(read.ms).toBeLessThan(WITHIN_TIMEOUT);
      expect(read.error.name).toBe('ToolError');
      expect(read.error.message).toMatch(/^The memory database did not answer within 1s \(.*timeout.*\)\. Nothing was changed/);
      const write = await timed(() => store.createEntities([entity('during')]));
      expect(write.ms).toBeLessThan(WITHIN_TIMEOUT);
      expect(write.error.message).toMatch(/did not answer within 1s/);

      relay.flow();
      let names: string[] | undefined;
      for (let i = 0; i < 5 && !names; i++)
        names = await store.readGraph().then(
          (g) => g.entities.map((e) => e.name),
          () => undefined,
        );
      expect(names).toEqual(['before']);
    } finally {
      relay.flow();
      await store.close();
    }
  });

  it('a connection that opens but never completes its start-up fails by the time-out too', async () => {
    const target = new URL(url!);
    await using relay = await startRelay({ host: target.hostname, port: Number(target.port) });
    relay.stall();
    const viaRelay = new URL(url!);
    viaRelay.port = String(relay.port);
    const store = openPostgresStore({ url: viaRelay.toString(), graph: freshGraph(), timeoutMs: 1000 });
    try {
      const { error, ms } = await timed(() => store.readGraph());
      expect(ms).toBeLessThan(WITHIN_TIMEOUT);
      expect(error.message).toMatch(/^The memory database did not answer within 1s \(.*\)\. Nothing was changed/);
    } finally {
      relay.flow();
      await store.close();
    }
  });

  it('a statement that waits too long (a lock held elsewhere) is cancelled by the server; the pool stays usable', async () => {
    const graph = freshGraph();
    const store = openPostgresStore({ url: url!, graph, poolSize: 1, timeoutMs: 1000 });
    const holder = new pg.Client(url);
    await holder.connect();
    try {
      await store.createEntities([entity('locked')]);
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM memory_entities WHERE graph = $1 FOR UPDATE`, [graph]);

      const { error, ms } = await timed(() => store.addObservations([{ entityName: 'locked', contents: ['x'] }]));
      expect(ms).toBeLessThan(WITHIN_TIMEOUT);
      expect(error.message).toBe(
        'The memory database did not answer within 1s (canceling statement due to statement timeout). Nothing was changed; try again once it is reachable.',
      );
      await holder.query('ROLLBACK');
      expect(await store.addObservations([{ entityName: 'locked', contents: ['x'] }])).toEqual([
        { entityName: 'locked', addedObservations: ['x'] },
      ]);
    } finally {
      await holder.end();
      await store.close();
    }
  });
});
