import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../src/logger.js';
import { startHttp } from '../src/testing/index.js';
import { createDemoServer } from './fixtures/demoServer.js';
import { INIT, openSession, raw, sessionHeaders } from './fixtures/rawHttp.js';

const app = (label = 'http') => ({ createServer: () => createDemoServer(label) });

describe('Streamable HTTP sessions', () => {
  it('gives each session its own server: colliding JSON-RPC ids get only their own results and notifications', async () => {
    // Every call stays in flight until all ten have started: the colliding ids are all open at once.
    let started = 0;
    let release = () => {};
    const gate = { started: () => void started++, release: new Promise<void>((resolve) => (release = resolve)) };
    await using http = await startHttp({ createServer: () => createDemoServer('http', undefined, gate) });
    const a = await http.connect({ name: 'a' });
    const b = await http.connect({ name: 'b' });
    const logs: Record<string, string[]> = { a: [], b: [] };
    a.setNotificationHandler('notifications/message', (n) => void logs.a!.push(String(n.params.data)));
    b.setNotificationHandler('notifications/message', (n) => void logs.b!.push(String(n.params.data)));
    // Both clients number their requests from the same start, so ids collide on the wire.
    const calls = [];
    for (let i = 0; i < 5; i++) {
      calls.push(a.callTool({ name: 'count', arguments: { marker: `A${i}` } }));
      calls.push(b.callTool({ name: 'count', arguments: { marker: `B${i}` } }));
    }
    await expect.poll(() => started).toBe(10);
    release();
    const results = await Promise.all(calls);
    for (let i = 0; i < 5; i++) {
      expect(results[2 * i]!.structuredContent).toMatchObject({ marker: `A${i}` });
      expect(results[2 * i + 1]!.structuredContent).toMatchObject({ marker: `B${i}` });
    }
    const countsA = results.filter((_, i) => i % 2 === 0).map((r) => (r.structuredContent as { calls: number }).calls);
    expect(countsA.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(logs.a!.sort()).toEqual(['log:A0', 'log:A1', 'log:A2', 'log:A3', 'log:A4']);
    expect(logs.b!.sort()).toEqual(['log:B0', 'log:B1', 'log:B2', 'log:B3', 'log:B4']);
    expect(http.running.sessionCount()).toBe(2);
  });

  it('ends a session on DELETE; its id then gets 404', async () => {
    await using http = await startHttp(app());
    const init = await raw(http.url, { body: INIT });
    expect(init.status).toBe(200);
    const sid = String(init.headers['mcp-session-id']);
    expect(http.running.sessionCount()).toBe(1);
    const del = await raw(http.url, { method: 'DELETE', headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' } });
    expect(del.status).toBe(200);
    expect(http.running.sessionCount()).toBe(0);
    const after = await raw(http.url, { headers: { 'mcp-session-id': sid }, body: { jsonrpc: '2.0', id: 2, method: 'ping' } });
    expect(after.status).toBe(404);
  });

  it('expires idle sessions', async () => {
    await using http = await startHttp(app(), { sessionIdleMs: 100 });
    const init = await raw(http.url, { body: INIT });
    const sid = String(init.headers['mcp-session-id']);
    expect(http.running.sessionCount()).toBe(1);
    // Wait for the state, not for a while: the idle timer closes the session (the poll bounds it at 5 s).
    await expect.poll(() => http.running.sessionCount()).toBe(0);
    const after = await raw(http.url, { headers: { 'mcp-session-id': sid }, body: { jsonrpc: '2.0', id: 2, method: 'ping' } });
    expect(after.status).toBe(404);
  });

  it('expires a session that made no request after initialize well before the idle timeout, freeing its slot', async () => {
    // The sessions' clock is the test's: the unused session expires when the test moves it, not when a busy
    // machine happens to be slow (the table's sweep runs every 37 ms; the test waits for its result).
    let clock = 1_000_000;
    await using http = await startHttp(app(), { maxSessions: 2, sessionIdleMs: 60_000, unusedSessionIdleMs: 150, now: () => clock });
    const unused = await openSession(http.url);
    const used = await openSession(http.url);
    const ping = (sid: string) => raw(http.url, { headers: sessionHeaders(sid), body: { jsonrpc: '2.0', id: 2, method: 'ping' } });
    expect((await ping(used)).status).toBe(200);
    expect((await raw(http.url, { body: INIT })).status).toBe(503);
    clock += 149;
    expect((await raw(http.url, { body: INIT })).status).toBe(503);
    clock += 2;
    await expect.poll(() => http.running.sessionCount()).toBe(1);
    expect((await ping(unused)).status).toBe(404);
    expect((await ping(used)).status).toBe(200);
    expect((await raw(http.url, { body: INIT })).status).toBe(200);
  });

  it('answers 503 beyond the session cap', async () => {
    await using http = await startHttp(app(), { maxSessions: 2 });
    expect((await raw(http.url, { body: INIT })).status).toBe(200);
    expect((await raw(http.url, { body: INIT })).status).toBe(200);
    const third = await raw(http.url, { body: INIT });
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBe('5');
    expect(JSON.parse(third.body).error.message).toMatch(/2 live sessions/);
  });

  it('refuses a request without a session that is not initialize', async () => {
    await using http = await startHttp(app());
    const res = await raw(http.url, { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(res.status).toBe(400);
  });

  it('serves stateless mode with a fresh server per request', async () => {
    await using http = await startHttp(app(), { stateless: true });
    const client = await http.connect();
    const first = await client.callTool({ name: 'count', arguments: { marker: 'x' } });
    const second = await client.callTool({ name: 'count', arguments: { marker: 'y' } });
    expect((first.structuredContent as { calls: number }).calls).toBe(1);
    expect((second.structuredContent as { calls: number }).calls).toBe(1);
    expect(http.running.sessionCount()).toBe(0);
    expect((await raw(http.url, { method: 'GET' })).status).toBe(405);
  });
});

describe('HTTP security defaults', () => {
  it('answers a request target that is not a URL 400 and goes on serving (it used to take the process down)', async () => {
    await using http = await startHttp(app());
    const bad = await raw(http.url, { method: 'GET', path: 'http://[' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.message).toBe('Bad Request: the request target is not a URL');
    expect((await raw(http.url, { body: INIT })).status).toBe(200);
  });

  it('refuses a foreign Host (DNS rebinding) with 403', async () => {
    await using http = await startHttp(app());
    const res = await raw(http.url, { headers: { Host: 'evil.example.com' }, body: INIT });
    expect(res.status).toBe(403);
    // The refusal names the flag that would accept the name (for a user behind a reverse proxy).
    expect(JSON.parse(res.body).error.message).toBe(
      'Forbidden: Host header "evil.example.com" is not allowed; accept it with --allowed-host evil.example.com',
    );
    const odd = await raw(http.url, { headers: { Host: 'evil_example!' }, body: INIT });
    expect(JSON.parse(odd.body).error.message).toBe('Forbidden: Host header "evil_example!" is not allowed');
    const ok = await raw(http.url, { headers: { Host: `localhost:${new URL(http.url).port}` }, body: INIT });
    expect(ok.status).toBe(200);
  });

  it('checks the port in Host against the bound port (here picked by port 0)', async () => {
    await using http = await startHttp(app());
    const port = Number(new URL(http.url).port);
    const other = port === 9999 ? 9998 : 9999;
    const status = async (host: string) => (await raw(http.url, { headers: { Host: host }, body: INIT })).status;
    expect(await status(`127.0.0.1:${port}`)).toBe(200);
    expect(await status(`localhost:${port}`)).toBe(200);
    expect(await status(`127.0.0.1:${other}`)).toBe(403);
    expect(await status(`localhost:${other}`)).toBe(403);
    expect(await status('localhost:0')).toBe(403);
    expect(await status('127.0.0.1')).toBe(403);
    const refused = await raw(http.url, { headers: { Host: `127.0.0.1:${other}` }, body: INIT });
    expect(JSON.parse(refused.body).error.message).toMatch(/Host header "127.0.0.1:\d+" is not allowed/);
  });

  it("refuses a foreign Origin and a loopback one on another port with 403; accepts the server's own", async () => {
    await using http = await startHttp(app());
    const port = Number(new URL(http.url).port);
    const status = async (origin: string) => (await raw(http.url, { headers: { Origin: origin }, body: INIT })).status;
    expect(await status('https://evil.example.com')).toBe(403);
    expect(await status('null')).toBe(403);
    expect(await status('http://localhost:6274')).toBe(403);
    expect(await status('http://127.0.0.1')).toBe(403);
    expect(await status(`http://localhost:${port}`)).toBe(200);
    expect(await status(`http://127.0.0.1:${port}`)).toBe(200);
  });

  it('accepts hosts and origins allowed by configuration', async () => {
    await using http = await startHttp(app(), {
      allowedHosts: ['mcp.example.com'],
      allowedOrigins: ['https://app.example.com', 'http://localhost:6274', 'vscode-webview://abc'],
    });
    const res = await raw(http.url, { headers: { Host: 'mcp.example.com', Origin: 'https://app.example.com' }, body: INIT });
    expect(res.status).toBe(200);
    expect((await raw(http.url, { headers: { Origin: 'http://localhost:6274' }, body: INIT })).status).toBe(200);
    const refused = await raw(http.url, { headers: { Origin: 'http://localhost:6275' }, body: INIT });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.message).toBe(
      'Forbidden: Origin "http://localhost:6275" is not allowed; accept it with --allowed-origin http://localhost:6275',
    );
    expect((await raw(http.url, { headers: { Origin: 'vscode-webview://abc' }, body: INIT })).status).toBe(200);
    // An allowed host's own origin is accepted too.
    expect((await raw(http.url, { headers: { Origin: 'https://mcp.example.com' }, body: INIT })).status).toBe(200);
  });

  it('accepts an allowed host without a port on any port, and one with a port only on that port', async () => {
    await using http = await startHttp(app(), { allowedHosts: ['proxy.example', 'pinned.example:8443'] });
    const status = async (host: string) => (await raw(http.url, { headers: { Host: host }, body: INIT })).status;
    expect(await status('proxy.example')).toBe(200);
    expect(await status('proxy.example:1234')).toBe(200);
    expect(await status('pinned.example:8443')).toBe(200);
    expect(await status('pinned.example:8444')).toBe(403);
    expect(await status('pinned.example')).toBe(403);
  });

  it('refuses to start with a malformed allowed host', async () => {
    await expect(startHttp(app(), { allowedHosts: ['proxy.example:http'] })).rejects.toThrow(/proxy.example:http/);
  });

  it('requires the bearer token when one is configured', async () => {
    await using http = await startHttp(app(), { authToken: 's3cret' });
    const missing = await raw(http.url, { body: INIT });
    expect(missing.status).toBe(401);
    // RFC 6750 §3.1: no error code without a token; `invalid_token` for a wrong one.
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="mcp"');
    const wrong = await raw(http.url, { headers: { Authorization: 'Bearer wrong' }, body: INIT });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="mcp", error="invalid_token"');
    expect((await raw(http.url, { headers: { Authorization: 'Bearer s3cret' }, body: INIT })).status).toBe(200);
    const client = await http.connect({ headers: { Authorization: 'Bearer s3cret' } });
    expect((await client.listTools()).tools.length).toBe(2);
    expect((await raw(http.url, { method: 'GET', path: '/healthz' })).status).toBe(200);
  });

  it('limits the request body size and rejects invalid JSON', async () => {
    await using http = await startHttp(app(), { maxBodyBytes: 1024 });
    const big = await raw(http.url, { body: { ...INIT, params: { ...INIT.params, pad: 'x'.repeat(4096) } } });
    expect(big.status).toBe(413);
    // Refused from its Content-Length, unread: the connection is closed rather than kept to read it to the end.
    expect(big.headers.connection).toBe('close');
    const bad = await raw(http.url, { body: '{not json' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.code).toBe(-32700);
  });

  it('answers /healthz and 404 elsewhere', async () => {
    await using http = await startHttp(app());
    const health = await raw(http.url, { method: 'GET', path: '/healthz' });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: 'ok' });
    expect((await raw(http.url, { method: 'GET', path: '/nope' })).status).toBe(404);
  });

  it('closes every session on shutdown', async () => {
    const http = await startHttp(app());
    const client = await http.connect();
    await client.listTools();
    let closed = false;
    client.onclose = () => {
      closed = true;
    };
    await http.running.close();
    expect(http.running.sessionCount()).toBe(0);
    await expect(raw(http.url, { method: 'GET', path: '/healthz' })).rejects.toThrow();
    await client.close();
    expect(closed).toBe(true);
  });
});

describe('legacy HTTP+SSE', () => {
  it('serves a client over /sse and /messages, one server per connection', async () => {
    await using http = await startHttp(app('sse'), { mode: 'sse' });
    expect(http.endpoint.endsWith('/sse')).toBe(true);
    const a = await http.connect();
    const b = await http.connect();
    expect((await a.callTool({ name: 'count', arguments: { marker: 'a' } })).structuredContent).toEqual({ marker: 'a', calls: 1 });
    expect((await a.callTool({ name: 'count', arguments: { marker: 'a' } })).structuredContent).toEqual({ marker: 'a', calls: 2 });
    expect((await b.callTool({ name: 'count', arguments: { marker: 'b' } })).structuredContent).toEqual({ marker: 'b', calls: 1 });
    expect(http.running.sessionCount()).toBe(2);
    const unknown = await raw(http.url, { path: '/messages?sessionId=nope', body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(unknown.status).toBe(404);
  });

  it('applies the same Host check to /sse', async () => {
    await using http = await startHttp(app(), { mode: 'sse' });
    const res = await raw(http.url, { method: 'GET', path: '/sse', headers: { Host: 'evil.example.com' } });
    expect(res.status).toBe(403);
  });
});

describe('the access log', () => {
  const capture = (level: 'info' | 'warn') => {
    const lines: string[] = [];
    return { lines, logger: createLogger({ name: 'access-test', level, write: (line) => void lines.push(line) }) };
  };

  it('logs one info line per request once its response is over, principal none without OAuth; /healthz at debug only', async () => {
    const { lines, logger } = capture('info');
    await using http = await startHttp(app(), { logger });
    const client = await http.connect({ name: 'a' });
    await client.callTool({ name: 'count', arguments: { marker: 'x' } });
    const health = await raw(http.url, { method: 'GET', path: '/healthz' });
    expect(health.status).toBe(200);
    const wrong = await raw(http.url, { path: '/nope', body: INIT });
    expect(wrong.status).toBe(404);
    await vi.waitFor(() => expect(lines.some((l) => l.includes('/nope'))).toBe(true));
    const access = lines.filter((l) => l.includes('access: '));
    expect(access.every((l) => l.startsWith('[access-test] info: access: '))).toBe(true);
    expect(access.find((l) => l.includes('method=initialize'))).toMatch(
      /access: POST \/mcp method=initialize principal=none status=200 time=\d+ms\n$/,
    );
    expect(access.find((l) => l.includes('tool=count'))).toMatch(
      /access: POST \/mcp method=tools\/call tool=count principal=none status=200 time=\d+ms\n$/,
    );
    expect(access.find((l) => l.includes('/nope'))).toMatch(/access: POST \/nope principal=none status=404 time=\d+ms\n$/);
    expect(access.some((l) => l.includes('/healthz'))).toBe(false);
  });

  it('names a forged method or tool only in printable, bounded form (no forged lines), and a batch by its first methods', async () => {
    const { lines, logger } = capture('info');
    await using http = await startHttp(app(), { logger });
    const forged = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: `evil\n[x] error: forged ${'y'.repeat(200)}`, arguments: {} },
    };
    await raw(http.url, { body: forged });
    const batch = ['a', 'b', 'c', 'd', 'e'].map((m, i) => ({ jsonrpc: '2.0', id: i + 1, method: m }));
    await raw(http.url, { body: batch });
    await vi.waitFor(() => expect(lines.filter((l) => l.includes('access: ')).length).toBe(2));
    expect(lines.every((l) => l.indexOf('\n') === l.length - 1)).toBe(true);
    expect(lines[0]).toMatch(/tool=evil\?\[x\]\?error:\?forged\?y+… principal=none/);
    expect(lines[0]!.length).toBeLessThan(200);
    expect(lines[1]).toMatch(/ method=a,b,c,\+2 principal=none status=\d+ /);
  });

  it('prints nothing at --log-level warn', async () => {
    const { lines, logger } = capture('warn');
    await using http = await startHttp(app(), { logger });
    const client = await http.connect({ name: 'a' });
    await client.callTool({ name: 'count', arguments: { marker: 'x' } });
    await client.close();
    await http[Symbol.asyncDispose]();
    expect(lines).toEqual([]);
  });
});
