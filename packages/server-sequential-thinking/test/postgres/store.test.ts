import { ToolError } from '@mcpkit/protocol-core';
import { freshDatabase, postgresUrl } from '@mcpkit/test-utils/postgres-fixture';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresChains } from '../../src/chains/postgresChains.js';
import { chainStoreSuite } from '../chainSuite.js';

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

describe.runIf(postgresUrl() !== undefined)('PostgreSQL: what the database holds', () => {
  it('no handle (a hash of it), no subject (the owner key the tool gives), the thoughts as JSON', async () => {
    await using db = await freshDatabase();
    const store = openPostgresChains({ maxHistory: 10, maxHistoryBytes: 1024, url: db.url, poolSize: 1 });
    try {
      const { handle } = await store.append('owner-key', undefined, {
        thought: 'kept',
        thoughtNumber: 1,
        totalThoughts: 1,
        nextThoughtNeeded: false,
      });
      const client = new pg.Client(db.url);
      await client.connect();
      try {
        const chains = await client.query('SELECT handle, owner FROM sequential_thinking_chains');
        expect(chains.rows).toEqual([{ handle: expect.not.stringContaining(handle), owner: 'owner-key' }]);
        const thoughts = await client.query('SELECT record FROM sequential_thinking_thoughts');
        expect(thoughts.rows[0].record).toMatchObject({ thought: 'kept', thoughtNumber: 1 });
      } finally {
        await client.end();
      }
    } finally {
      await store.close();
    }
  });
});

describe('PostgreSQL: a database that cannot be reached', () => {
  it('each call fails with a tool error saying nothing was recorded, without the password', async () => {
    const store = openPostgresChains({
      maxHistory: 10,
      maxHistoryBytes: 1024,
      url: 'postgres://u:s3cr3t-pw@127.0.0.1:1/db',
      timeoutMs: 2000,
    });
    try {
      const failed = store.append('owner', undefined, { thought: 'x', thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false });
      await expect(failed).rejects.toBeInstanceOf(ToolError);
      await expect(failed).rejects.toThrow(/^The thought chain database failed: .*Nothing was recorded; try again once it is reachable\.$/);
      await expect(failed).rejects.not.toThrow(/s3cr3t-pw/);
    } finally {
      await store.close();
    }
  });
});
