// @module-tag slow
/**
 * `--graph-per-user` on PostgreSQL: however many users, the process holds its one pool (`--pool-size`) and one
 * LISTEN connection; each user's graph stays their own, and other processes' changes reach the right user only.
 */
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { openPostgresUserGraphs } from '../../src/store/postgres/userGraphs.js';
import type { GraphChange } from '../../src/store/types.js';
import type { UserGraphs } from '../../src/userGraphs.js';
import { freshDatabase, postgresUrl } from './fixture.js';

const url = postgresUrl();
const USERS = 50;
const POOL_SIZE = 10;
const as = (subject: string) => ({ http: { authInfo: { token: 't', clientId: 'app', scopes: [], extra: { subject } } } });
const entity = (name: string) => ({ name, entityType: 't', observations: [] });

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 20 },
  );
}

describe.skipIf(!url)('PostgreSQL store: --graph-per-user', () => {
  it(`${USERS} users share one pool and one LISTEN connection; graphs and notifications stay per user`, async () => {
    await using database = await freshDatabase();
    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client(url);
    await admin.connect();
    /** Connections to the test's database, other than the admin's (which is on another database). */
    const connections = async () =>
      (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name])).rows[0]!.n;
    const users = openPostgresUserGraphs({ url: database.url, poolSize: POOL_SIZE });
    // Another process on the same database, opened once the first one's connections are counted.
    let replica: UserGraphs | undefined;
    const subjects = Array.from({ length: USERS }, (_, i) => `user-${i}`);
    const heard = new Map(subjects.map((s) => [s, [] as GraphChange[]]));
    const held = new Map<string, () => void>();
    try {
      // Every user subscribes (their graph held open and watched) and writes, all at once.
      await Promise.all(
        subjects.map(async (subject) => {
          const { store, release } = await users.hold(as(subject));
          const unwatch = store.watch();
          const off = store.onChange((change) => heard.get(subject)!.push(change));
          held.set(subject, () => {
            off();
            unwatch();
            release();
          });
          await store.listening!();
          await store.createEntities([entity(`of ${subject}`)]);
        }),
      );
      // The pool's connections (idle ones stay open for 10 s) and the one LISTEN connection, not some per user.
      expect(await connections()).toBeLessThanOrEqual(POOL_SIZE + 1);

      // Each graph holds its own user's entity only.
      for (const subject of subjects) {
        const page = await users.use(as(subject), (store) => store.readGraph());
        expect(page.entities.map((e) => e.name)).toEqual([`of ${subject}`]);
      }
      // Their own writes were heard once each, as local.
      for (const subject of subjects) expect(heard.get(subject)).toEqual([{ source: 'local' }]);

      replica = openPostgresUserGraphs({ url: database.url, poolSize: 2 });
      // Another process writes user-7's graph: user-7 hears it, nobody else does.
      await replica!.use(as('user-7'), (store) => store.createEntities([entity('from the replica')]));
      await until(() => heard.get('user-7')!.length === 2, "user-7's notice");
      expect(heard.get('user-7')).toEqual([{ source: 'local' }, { source: 'external' }]);
      await replica!.use(as('user-8'), (store) => store.deleteEntities(['of user-8']));
      // A user who stops listening is no longer told; the others still are.
      held.get('user-0')!();
      await replica!.use(as('user-0'), (store) => store.createEntities([entity('unheard')]));
      // Notices reach the one LISTEN connection in commit order: once user-9's is in, every earlier one is.
      await replica!.use(as('user-9'), (store) => store.createEntities([entity('last')]));
      await until(() => heard.get('user-9')!.length === 2, "user-9's notice");
      for (const subject of subjects)
        expect(heard.get(subject)!.length, subject).toBe(['user-7', 'user-8', 'user-9'].includes(subject) ? 2 : 1);
      // The replica's pool (2) and LISTEN connection (none: it watches nothing) come on top.
      expect(await connections()).toBeLessThanOrEqual(POOL_SIZE + 1 + 2);
    } finally {
      for (const release of held.values()) release();
      await Promise.all([users.close(), replica?.close()]);
      await admin.end();
    }
  });
});
