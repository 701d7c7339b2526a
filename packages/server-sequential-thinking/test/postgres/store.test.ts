import { afterAll } from 'vitest';
import { openPostgresChains } from '../../src/chains/postgresChains.js';
import { chainStoreSuite } from '../chainSuite.js';
import { freshDatabase, postgresUrl } from './fixture.js';

const databases: AsyncDisposable[] = [];
afterAll(async () => {
  for (const db of databases) await db[Symbol.asyncDispose]();
});

chainStoreSuite(
  'PostgreSQL',
  async (options) => {
    const db = await freshDatabase();
    databases.push(db);
    return openPostgresChains({ maxHistory: 1000, maxHistoryBytes: 1024 * 1024, ...options, url: db.url, poolSize: 2 });
  },
  postgresUrl() !== undefined,
);
