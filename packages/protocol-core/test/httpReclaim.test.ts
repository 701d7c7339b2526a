import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { startHttp } from '../src/testing/index.js';
import { createDemoServer } from './fixtures/demoServer.js';
import { INIT, openSession, openStream, raw, sessionHeaders } from './fixtures/rawHttp.js';

const app = () => ({ createServer: () => createDemoServer('reclaim') });

const ping = (url: string, sid: string) => raw(url, { headers: sessionHeaders(sid), body: { jsonrpc: '2.0', id: 9, method: 'ping' } });
const slowCall = (url: string, sid: string) =>
  raw(url, {
    headers: sessionHeaders(sid),
    body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'count', arguments: { marker: 'slow' } } },
  });

function sessionIdOf(client: Client): string {
  const sid = (client.transport as { sessionId?: string } | undefined)?.sessionId;
  if (!sid) throw new Error('the client has no session id');
  return sid;
}

describe('reclaiming sessions when the table is full', () => {
  // Sized by turnover, not count: 60 clients through a 5-session table fill it twelve times over (as 250 through
  // 20 did) at a quarter of the work, so a loaded machine does not turn it into a timing test.
  it('serves 60 sequential connect-call-close SDK clients (no DELETE) with --max-sessions 5: none refused', {
    tags: ['slow'],
    timeout: 60_000,
  }, async () => {
    await using http = await startHttp(app(), { maxSessions: 5 });
    let refused = 0;
    for (let i = 0; i < 60; i++) {
      try {
        const client = await http.connect({ name: `c${i}` });
        const result = await client.callTool({ name: 'count', arguments: { marker: `m${i}` } });
        expect(result.structuredContent).toEqual({ marker: `m${i}`, calls: 1 });
        await client.close();
      } catch {
        refused++;
      }
    }
    expect(refused).toBe(0);
    expect(http.running.sessionCount()).toBeLessThanOrEqual(5);
  });

  it("answers an evicted session's next request with 404, so its client re-initializes", async () => {
    await using http = await startHttp(app(), { maxSessions: 2 });
    const first = await http.connect({ name: 'first' });
    const sid = sessionIdOf(first);
    await first.callTool({ name: 'count', arguments: { marker: 'a' } });
    await first.close();
    const second = await http.connect({ name: 'second' });
    await second.close();
    // Full with two closed clients: the next initialize reclaims the first one's slot.
    const third = await http.connect({ name: 'third' });
    expect((await third.callTool({ name: 'count', arguments: { marker: 'c' } })).structuredContent).toEqual({ marker: 'c', calls: 1 });
    const after = await ping(http.url, sid);
    expect(after.status).toBe(404);
    expect(JSON.parse(after.body).error.message).toMatch(/Session not found/);
  });

  it('never reclaims a session with a request in flight: a full table of them answers 503', async () => {
    // The calls stay in flight until the test releases them: no guess at how long "in flight" lasts.
    let started = 0;
    let release = () => {};
    const gate = { started: () => void started++, release: new Promise<void>((resolve) => (release = resolve)) };
    // Reclaiming idle sessions at once isolates the in-flight rule.
    await using http = await startHttp(
      { createServer: () => createDemoServer('reclaim', undefined, gate) },
      { maxSessions: 2, reclaimIdleMs: 0 },
    );
    const a = await openSession(http.url);
    const b = await openSession(http.url);
    const calls = [slowCall(http.url, a), slowCall(http.url, b)];
    await expect.poll(() => started).toBe(2);
    const refused = await raw(http.url, { body: INIT });
    release(); // before the checks: a failed one must not leave the calls holding the runner's shutdown
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    const done = await Promise.all(calls);
    expect(done.map((r) => r.status)).toEqual([200, 200]);
    expect(done.every((r) => r.body.includes('"calls":1'))).toBe(true);
    // Both idle now: a new session takes the slot of the one idle longest.
    expect((await raw(http.url, { body: INIT })).status).toBe(200);
    expect(http.running.sessionCount()).toBe(2);
  });

  it('never reclaims a session whose GET stream is open; reclaims it once its client drops the stream', async () => {
    await using http = await startHttp(app(), { maxSessions: 1, reclaimIdleMs: 60_000 });
    const sid = await openSession(http.url);
    const stream = await openStream(http.url, '/mcp', sessionHeaders(sid));
    expect(stream.status).toBe(200);
    expect((await raw(http.url, { body: INIT })).status).toBe(503);
    stream.close();
    // Dropped by the client without DELETE, well inside the idle floor: the client left (once the server has
    // seen the stream close; a refused initialize changes nothing, so asking again until it is taken is safe).
    await expect.poll(async () => (await raw(http.url, { body: INIT })).status, { interval: 20 }).toBe(200);
    expect((await ping(http.url, sid)).status).toBe(404);
  });

  it('keeps a session active within the idle floor: no stream, nothing in flight, still 503', async () => {
    await using http = await startHttp(app(), { maxSessions: 1, reclaimIdleMs: 60_000 });
    const sid = await openSession(http.url);
    expect((await ping(http.url, sid)).status).toBe(200);
    expect((await raw(http.url, { body: INIT })).status).toBe(503);
    expect((await ping(http.url, sid)).status).toBe(200);
  });

  it('reclaims a session idle past the floor, the longest idle first', async () => {
    // The session table's clock is the test's: idle times are what it says, however slow the machine.
    let clock = 0;
    await using http = await startHttp(app(), { maxSessions: 2, reclaimIdleMs: 200, now: () => clock });
    const older = await openSession(http.url);
    clock += 50;
    const newer = await openSession(http.url);
    clock += 149; // older idle 199 ms, newer 149 ms: both inside the floor
    expect((await raw(http.url, { body: INIT })).status).toBe(503);
    clock += 61; // older 260 ms, newer 210 ms: both past it, older the longest idle
    expect((await raw(http.url, { body: INIT })).status).toBe(200);
    expect((await ping(http.url, older)).status).toBe(404);
    expect((await ping(http.url, newer)).status).toBe(200);
  });
});
