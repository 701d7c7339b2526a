/** Test access to the run's PostgreSQL (`globalSetup.ts`, `@mcpkit/test-utils/postgres-fixture`): its URL, fresh databases, and stores on fresh graphs. */
import { randomUUID } from 'node:crypto';
import { postgresUrl } from '@mcpkit/test-utils/postgres-fixture';
import { openPostgresStore, type PostgresStoreOptions } from '../../src/store/postgres/postgresStore.js';
import type { StoreFixture } from '../storeSuite.js';

export { freshDatabase, postgresUrl } from '@mcpkit/test-utils/postgres-fixture';

/** A graph name no other test uses. */
export const freshGraph = (): string => `test-${randomUUID()}`;

/** A store on a fresh graph of the run's database; `reopen` opens another store (its own pool) on that graph. */
export async function postgresFixture(options: Partial<PostgresStoreOptions> = {}): Promise<StoreFixture> {
  const url = postgresUrl();
  if (!url) throw new Error('no PostgreSQL for this run');
  const config = { url, graph: freshGraph(), poolSize: 4, ...options };
  const store = openPostgresStore(config);
  return { store, reopen: async () => openPostgresStore(config), [Symbol.asyncDispose]: () => store.close() };
}
