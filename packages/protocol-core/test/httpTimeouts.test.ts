import { describe, expect, it } from 'vitest';
import { startHttp } from '../src/testing/index.js';
import { createDemoServer } from './fixtures/demoServer.js';
import { dripRequest, openSession, openStream, raw, sessionHeaders } from './fixtures/rawHttp.js';

const app = () => ({ createServer: () => createDemoServer('timeouts') });

/** Well past the 300 ms limits below, and well short of the test timeout. */
const GIVE_UP_MS = 5000;

/** The request timeout the two streaming tests set: a stream must outlive it. */
const STREAM_REQUEST_TIMEOUT_MS = 200;
/**
 * Kept on the wall clock, because the contract is a timeout enforced by Node's own HTTP server (its
 * connection-checking interval, out of reach of fake timers): a stream left open for six times the request
 * timeout has outlived it, with the server's check having run several times meanwhile.
 */
const PAST_THE_TIMEOUT_MS = 6 * STREAM_REQUEST_TIMEOUT_MS;

describe('HTTP request timeouts', () => {
  it('cuts off a client that drips its body', async () => {
    await using http = await startHttp(app(), { requestTimeoutMs: 300 });
    const { host } = new URL(http.url);
    const head = `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n`;
    const result = await dripRequest(http.url, head, '{"jsonrpc":"2.0"', { everyMs: 50, giveUpMs: GIVE_UP_MS });
    expect(result.closed).toBe(true);
    expect(result.response).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('cuts off a client that drips its headers', async () => {
    await using http = await startHttp(app(), { requestTimeoutMs: 300 });
    const result = await dripRequest(http.url, 'POST /mcp HTTP/1.1\r\n', 'X-Slow: aaaaaaaaaaaaaaaaaaaa\r\n', {
      everyMs: 50,
      giveUpMs: GIVE_UP_MS,
    });
    expect(result.closed).toBe(true);
    expect(result.response).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('keeps a Streamable HTTP GET stream open past the request timeout, and still delivers on it', async () => {
    await using http = await startHttp(app(), { requestTimeoutMs: STREAM_REQUEST_TIMEOUT_MS });
    const sid = await openSession(http.url);
    const stream = await openStream(http.url, '/mcp', sessionHeaders(sid));
    try {
      expect(stream.status).toBe(200);
      await new Promise((r) => setTimeout(r, PAST_THE_TIMEOUT_MS));
      expect(stream.closed()).toBe(false);
      // The tool logs without a related request, so the notification goes out on the GET stream.
      const call = await raw(http.url, {
        headers: sessionHeaders(sid),
        body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'count', arguments: { marker: 'late' } } },
      });
      expect(call.status).toBe(200);
      await stream.waitFor('log:late');
    } finally {
      stream.close();
    }
  });

  it('keeps a legacy SSE stream open past the request timeout, and still answers on it', async () => {
    await using http = await startHttp(app(), { mode: 'sse', requestTimeoutMs: STREAM_REQUEST_TIMEOUT_MS });
    const stream = await openStream(http.url, '/sse');
    try {
      expect(stream.status).toBe(200);
      await stream.waitFor('event: endpoint');
      const endpoint = /data: (\/messages\?sessionId=\S+)/.exec(stream.text())![1]!;
      await new Promise((r) => setTimeout(r, PAST_THE_TIMEOUT_MS));
      expect(stream.closed()).toBe(false);
      const ping = await raw(http.url, { path: endpoint, body: { jsonrpc: '2.0', id: 7, method: 'ping' } });
      expect(ping.status).toBe(202);
      await stream.waitFor('"id":7');
    } finally {
      stream.close();
    }
  });
});
