// @module-tag slow
import { createLogger } from '@mcpkit/protocol-core';
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/postgresStore.js';
import { freshGraph, postgresUrl } from './fixture.js';
import { startRelay } from './proxy.js';

const url = postgresUrl();

/** A logger that keeps its lines. */
function recordingLogger() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ name: 'test', level: 'debug', write: (line) => lines.push(line) }) };
}

describe.skipIf(!url)('PostgreSQL store: faults', () => {
  it('starts with the database down, fails each call clearly and fast, and recovers when it is back', async () => {
    const target = new URL(url!);
    await using relay = await startRelay({ host: target.hostname, port: Number(target.port) });
    await relay.down();
    const viaRelay = new URL(url!);
    viaRelay.port = String(relay.port);
    viaRelay.password = 's3cret%2Fpass';
    const { lines, logger } = recordingLogger();
    const store = openPostgresStore({ url: viaRelay.toString(), graph: freshGraph(), logger, connectTimeoutMs: 2000 });
    try {
      expect(store.location).not.toContain('s3cret');
      const started = Date.now();
      const error = await store.createEntities([{ name: 'A', entityType: 't', observations: [] }]).catch((e: Error) => e);
      expect(Date.now() - started).toBeLessThan(2000 * 5); // a factor of the 2 s connect timeout, the contract here
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).name).toBe('ToolError');
      expect((error as Error).message).toMatch(/^The memory database failed: .*ECONNREFUSED.*Nothing was changed/);
      await expect(store.readGraph()).rejects.toThrow(/The memory database failed/);

      await relay.up();
      expect(await store.createEntities([{ name: 'A', entityType: 't', observations: [] }])).toHaveLength(1);
      expect((await store.readGraph()).entities.map((e) => e.name)).toEqual(['A']);

      // Down again while the pool holds connections: calls fail, then recover without a restart.
      await relay.down();
      await expect(store.readGraph()).rejects.toThrow(/The memory database failed/);
      await relay.up();
      let graph: Awaited<ReturnType<typeof store.readGraph>> | undefined;
      for (let i = 0; i < 5 && !graph; i++) graph = await store.readGraph().catch(() => undefined);
      expect(graph?.entities.map((e) => e.name)).toEqual(['A']);
    } finally {
      await store.close();
    }
    const all = lines.join('\n');
    expect(all).toContain('ECONNREFUSED');
    expect(all).not.toMatch(/s3cret/);
  });

  it('a failed login names the problem and never the password', async () => {
    const bad = new URL(url!);
    bad.username = 'nosuchuser';
    bad.password = 'hunter2-secret';
    const { lines, logger } = recordingLogger();
    const store = openPostgresStore({ url: bad.toString(), graph: freshGraph(), logger });
    try {
      const error = (await store.readGraph().catch((e: Error) => e)) as Error;
      expect(error.message).toMatch(/The memory database failed: .*nosuchuser/);
      expect(error.message).not.toContain('hunter2');
    } finally {
      await store.close();
    }
    expect(lines.join('\n')).not.toContain('hunter2');
  });
});
