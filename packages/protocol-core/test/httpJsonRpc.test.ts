import { describe, expect, it } from 'vitest';
import { startHttp } from '../src/testing/index.js';
import { createDemoServer } from './fixtures/demoServer.js';
import { openSession, openStream, raw, sessionHeaders } from './fixtures/rawHttp.js';

const app = { createServer: () => createDemoServer('http') };

/** Bodies that are JSON but not JSON-RPC, with the answer JSON-RPC 2.0 names. */
const BAD: [string, unknown, number | string | null, string][] = [
  ['a wrong jsonrpc', { jsonrpc: '1.0', id: 2, method: 'ping' }, 2, 'Invalid Request: jsonrpc must be "2.0"'],
  ['a method that is not a string', { jsonrpc: '2.0', id: 'm', method: 5 }, 'm', 'Invalid Request: method must be a string'],
  [
    'params that are not an object',
    { jsonrpc: '2.0', id: 4, method: 'tools/list', params: 'x' },
    4,
    'Invalid Request: params must be an object',
  ],
  ['an id of the wrong type', { jsonrpc: '2.0', id: [1], method: 'ping' }, null, 'Invalid Request: id must be a string or an integer'],
  ['an empty batch', [], null, 'Invalid Request: an empty batch'],
  ['a batch with a bad entry', [{ jsonrpc: '2.0', id: 7, method: 'ping' }, 3], null, 'Invalid Request: a message must be a JSON object'],
];

describe('JSON that is not JSON-RPC, over HTTP', () => {
  it.each(BAD)('Streamable HTTP, in a session: %s gets 400 and -32600 with the id', async (_what, body, id, message) => {
    await using http = await startHttp(app);
    const sid = await openSession(http.url);
    const res = await raw(http.url, { headers: sessionHeaders(sid), body: body as object });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message } });
  });

  it('Streamable HTTP: without a session, and stateless', async () => {
    await using http = await startHttp(app);
    const res = await raw(http.url, { body: { jsonrpc: '2.0', id: 3, method: 5 } });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32600, message: 'Invalid Request: method must be a string' },
    });
    await using stateless = await startHttp(app, { stateless: true });
    const res2 = await raw(stateless.url, { body: { jsonrpc: '2.0', id: 'x', method: 'tools/list', params: [] } });
    expect(res2.status).toBe(400);
    expect(JSON.parse(res2.body)).toMatchObject({ id: 'x', error: { code: -32600 } });
  });

  it('legacy SSE: a bad message gets a JSON-RPC error, not plain text', async () => {
    await using http = await startHttp(app, { mode: 'sse' });
    const stream = await openStream(http.url, '/sse');
    try {
      await stream.waitFor('\n\n');
      const endpoint = /event: endpoint\ndata: (\S+)/.exec(stream.text())?.[1] ?? '';
      const res = await raw(http.url, { path: endpoint, body: { jsonrpc: '2.0', id: 5, method: 'ping', params: 'x' } });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual({
        jsonrpc: '2.0',
        id: 5,
        error: { code: -32600, message: 'Invalid Request: params must be an object' },
      });
      const bad = await raw(http.url, { path: endpoint, body: '{"jsonrpc":' });
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.body)).toMatchObject({ id: null, error: { code: -32700 } });
    } finally {
      stream.close();
    }
  });
});
