/**
 * The HTTP runner's drain and probes, in process: `/readyz` (the app's readiness, the OAuth issuer's metadata and
 * keys, the drain), and `close()` draining: a call in flight over legacy SSE finishes, new work gets 503 with
 * `Retry-After`, a 2026 listen stream is ended once nothing is in flight.
 */

import { startAuthServer } from '@mcpkit/test-utils/auth';
import { describe, expect, it } from 'vitest';
import { createAuthGuard } from '../src/auth/guard.js';
import { parseAuthConfig } from '../src/auth/options.js';
import { createMcpServer, defineTool, registerTools, textResult } from '../src/index.js';
import type { ServerApp } from '../src/runner/types.js';
import { createListenBus } from '../src/subscriptions.js';
import { freePort, startHttp } from '../src/testing/index.js';
import { openListen, raw } from './fixtures/rawHttp.js';

/** An app whose `hold` tool answers when the test calls `release`; `started` resolves when a call is in it. */
function holdApp(extra: Partial<ServerApp> = {}) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started!: () => void;
  const inCall = new Promise<void>((resolve) => {
    started = resolve;
  });
  const app: ServerApp = {
    createServer: () => {
      const server = createMcpServer({ name: 'hold', version: '0.0.0' });
      registerTools(server, {}, [
        defineTool({
          name: 'hold',
          title: 'Hold',
          description: 'Answers when released.',
          input: {},
          annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
          handler: async () => {
            started();
            await released;
            return textResult('released');
          },
        }),
      ]);
      return server;
    },
    bus: createListenBus().bus,
    ...extra,
  };
  return { app, release, inCall };
}

async function readyz(url: string) {
  const res = await raw(url, { method: 'GET', path: '/readyz' });
  return { status: res.status, body: JSON.parse(res.body) as { status: string; reason?: string } };
}

describe('/readyz', () => {
  it("answers 503 with the app's reason while it is not ready, 200 once it is", async () => {
    let state = { ok: false, reason: 'the database at db:5432 is unreachable' };
    const { app } = holdApp({ ready: async () => state });
    await using http = await startHttp(app);
    expect(await readyz(http.url)).toEqual({
      status: 503,
      body: { status: 'unavailable', reason: 'the database at db:5432 is unreachable' },
    });
    state = { ok: true, reason: '' };
    // The answer is reused for a second: wait on the state, not on the clock.
    await expect.poll(async () => (await readyz(http.url)).status, { timeout: 5000, interval: 100 }).toBe(200);
    // Liveness never asks the app.
    expect((await raw(http.url, { method: 'GET', path: '/healthz' })).status).toBe(200);
  });

  it("answers 503 when the OAuth issuer's metadata cannot be had, 200 with a reachable issuer", async () => {
    const resource = 'http://127.0.0.1/mcp';
    const down = parseAuthConfig(['--oauth-issuer', `http://127.0.0.1:${await freePort()}`, '--oauth-audience', resource], {});
    await using unreachable = await startHttp(holdApp().app, { auth: createAuthGuard(down!, {}) });
    const answer = await readyz(unreachable.url);
    expect(answer.status).toBe(503);
    expect(answer.body.status).toBe('unavailable');
    expect(answer.body.reason).toContain("the OAuth issuer's metadata or keys cannot be had");

    await using as = await startAuthServer({ resources: { [resource]: { scopes: ['test:read'] } } });
    const up = parseAuthConfig(['--oauth-issuer', as.issuer, '--oauth-audience', resource], {});
    await using reachable = await startHttp(holdApp().app, { auth: createAuthGuard(up!, {}) });
    expect(await readyz(reachable.url)).toEqual({ status: 200, body: { status: 'ok' } });
  });
});

describe('close() drains', () => {
  it('lets a legacy SSE call in flight finish; meanwhile /readyz is 503 and a new stream gets 503 + Retry-After', async () => {
    const { app, release, inCall } = holdApp();
    await using http = await startHttp(app, { mode: 'sse' });
    const client = await http.connect();
    const call = client.callTool({ name: 'hold', arguments: {} });
    await inCall;
    const closing = http.running.close();
    expect(await readyz(http.url)).toMatchObject({ status: 503, body: { status: 'draining' } });
    const refused = await raw(http.url, { method: 'GET', path: '/sse', headers: { Accept: 'text/event-stream' } });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    release();
    expect(await call).toMatchObject({ content: [{ type: 'text', text: 'released' }] });
    await closing;
  });

  it('ends a 2026 subscriptions/listen stream when it closes', async () => {
    const { app } = holdApp();
    await using http = await startHttp(app);
    const stream = await openListen(http.url, 'l1');
    await stream.waitFor('notifications/subscriptions/acknowledged');
    await http.running.close();
    expect(stream.closed()).toBe(true);
  });

  it('cuts a call still running when the grace runs out', async () => {
    const { app, inCall } = holdApp();
    await using http = await startHttp(app, { shutdownGraceMs: 50 });
    const client = await http.connect();
    void client.callTool({ name: 'hold', arguments: {} }).catch(() => {});
    await inCall;
    await http.running.close();
    expect(http.running.sessionCount()).toBe(0);
  });
});
