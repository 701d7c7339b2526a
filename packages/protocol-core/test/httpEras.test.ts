// Both protocol eras on one HTTP runner: what a 2026-07-28 request gets besides the 2025 session
// behaviour (`http.test.ts`), and which runner defaults hold for it.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { newV2Client, startHttp } from '../src/testing/index.js';
import { createDemoServer } from './fixtures/demoServer.js';
import { openSession, raw, sessionHeaders } from './fixtures/rawHttp.js';

const app = () => ({ createServer: () => createDemoServer('eras') });

/** A pinned 2026-07-28 client whose next requests get `rewrite` applied to their headers; answers are recorded. */
async function tamperingClient(endpoint: string) {
  const state: { rewrite?: (headers: Headers) => void; answers: { status: number; body: string }[] } = { answers: [] };
  const client = newV2Client({ mode: '2026-07-28' });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
    fetch: async (url, init) => {
      const headers = new Headers(init?.headers);
      state.rewrite?.(headers);
      const response = await fetch(url, { ...init, headers });
      if (state.rewrite) state.answers.push({ status: response.status, body: await response.clone().text() });
      return response;
    },
  });
  await client.connect(transport);
  return { client, state };
}

describe('2026-07-28 over Streamable HTTP', () => {
  it('is served without a session next to 2025 sessions, by the same process', async () => {
    await using http = await startHttp(app());
    await openSession(http.url);
    const modern = await http.connect({ mode: '2026-07-28' });
    const legacy = await http.connect();
    expect((await modern.callTool({ name: 'count', arguments: { marker: 'm' } })).structuredContent).toEqual({ marker: 'm', calls: 1 });
    expect((await legacy.callTool({ name: 'count', arguments: { marker: 'l' } })).structuredContent).toEqual({ marker: 'l', calls: 1 });
    expect(http.running.sessionCount()).toBe(2);
  });

  it('refuses a request whose Mcp-Method or Mcp-Name header disagrees with its body (400, -32020)', async () => {
    await using http = await startHttp(app());
    const { client, state } = await tamperingClient(http.endpoint);
    try {
      expect((await client.callTool({ name: 'count', arguments: { marker: 'ok' } })).isError).toBeFalsy();
      for (const [header, value] of [
        ['mcp-name', 'fail'],
        ['mcp-method', 'tools/list'],
      ] as const) {
        state.rewrite = (headers) => headers.set(header, value);
        await expect(client.callTool({ name: 'count', arguments: { marker: 'x' } })).rejects.toThrow();
        const answer = state.answers.pop();
        expect(answer?.status, header).toBe(400);
        expect(JSON.parse(answer!.body), header).toMatchObject({ error: { code: -32020 } });
      }
      state.rewrite = undefined;
      expect((await client.callTool({ name: 'count', arguments: { marker: 'again' } })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('keeps the bearer token, Host check and body cap in front of 2026 requests', async () => {
    await using http = await startHttp(app(), { authToken: 'sekret', maxBodyBytes: 4096 });
    await expect(http.connect({ mode: '2026-07-28' })).rejects.toThrow();
    const client = await http.connect({ mode: '2026-07-28', headers: { Authorization: 'Bearer sekret' } });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const discover = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} };
    const auth = { Authorization: 'Bearer sekret', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' };
    expect((await raw(http.url, { headers: { ...auth, Host: 'evil.example.com' }, body: discover })).status).toBe(403);
    const big = { ...discover, params: { _meta: { pad: 'x'.repeat(5000) } } };
    expect((await raw(http.url, { headers: auth, body: big })).status).toBe(413);
  });

  it('answers malformed params with -32602 of one line naming the field, in both eras', async () => {
    await using http = await startHttp(app());
    const client = await http.connect({ mode: '2026-07-28' });
    await expect(client.request({ method: 'resources/read', params: { uri: 5 } } as never)).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid resources/read request: Invalid input: expected string, received number at params.uri',
    });
    const sid = await openSession(http.url);
    const res = await raw(http.url, {
      headers: sessionHeaders(sid),
      body: { jsonrpc: '2.0', id: 4, method: 'prompts/get', params: { name: ['a'] } },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32602, message: 'Invalid prompts/get request: Invalid input: expected string, received array at params.name' },
    });
  });
});

describe('--stateless serves both eras per request', () => {
  it('a 2025 and a 2026 client each call a tool; GET and DELETE get 405', async () => {
    await using http = await startHttp(app(), { stateless: true });
    const modern = await http.connect({ mode: 'auto' });
    expect(modern.getProtocolEra()).toBe('modern');
    const legacy = await http.connect();
    expect((await modern.callTool({ name: 'count', arguments: { marker: 'm' } })).structuredContent).toEqual({ marker: 'm', calls: 1 });
    expect((await legacy.callTool({ name: 'count', arguments: { marker: 'l' } })).structuredContent).toEqual({ marker: 'l', calls: 1 });
    expect(http.running.sessionCount()).toBe(0);
    for (const method of ['GET', 'DELETE']) {
      const res = await raw(http.url, { method, headers: { 'mcp-session-id': 'x' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow, method).toBe('POST');
    }
  });
});
