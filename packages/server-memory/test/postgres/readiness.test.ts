// @module-tag slow
// `/readyz` of memory on PostgreSQL: the store's ping says whether the database answers, with the reason (redacted).
import { startHttp } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../src/server.js';
import { openPostgresStore } from '../../src/store/postgres/postgresStore.js';
import { freshGraph, postgresUrl } from './fixture.js';
import { startRelay } from './proxy.js';

const url = postgresUrl();

describe.skipIf(!url)('PostgreSQL store: readiness', () => {
  it('/readyz is 503 naming the unreachable database (no password) while it is down, 200 when it is back', async () => {
    const target = new URL(url!);
    await using relay = await startRelay({ host: target.hostname, port: Number(target.port) });
    const viaRelay = new URL(url!);
    viaRelay.port = String(relay.port);
    const password = viaRelay.password;
    const store = openPostgresStore({ url: viaRelay.toString(), graph: freshGraph(), connectTimeoutMs: 1000 });
    await using http = await startHttp({
      createServer: () => createMemoryServer({ store }),
      ready: store.ping,
      close: () => store.close(),
    });
    const readyz = async () => {
      const res = await fetch(`${http.url}/readyz`);
      return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
    };
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ok' } });
    await relay.down();
    await expect.poll(async () => (await readyz()).status, { timeout: 10_000, interval: 200 }).toBe(503);
    const down = await readyz();
    expect(down.body.status).toBe('unavailable');
    expect(down.body.reason).toMatch(/^the memory database at .* is unreachable: /);
    if (password) expect(down.body.reason).not.toContain(decodeURIComponent(password));
    await relay.up();
    await expect.poll(async () => (await readyz()).status, { timeout: 10_000, interval: 200 }).toBe(200);
  });
});
