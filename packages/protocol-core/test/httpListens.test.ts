/**
 * The slots of 2026-07-28 `subscriptions/listen` streams over HTTP (`listenSlots.ts`): a principal's cap
 * (`--max-listens-per-principal`) and, when the process's table (`--max-listens`) is full, reclaiming a stream
 * whose client is gone, or else the oldest stream of the principal holding the most. Principals here are client
 * addresses (no OAuth): 127.0.0.1 and 127.0.0.2 are two clients.
 */
import { connect, type Socket } from 'node:net';
import { startAuthServer } from '@mcpkit/test-utils/auth';
import { describe, expect, it } from 'vitest';
import { createAuthGuard } from '../src/auth/guard.js';
import { parseAuthConfig } from '../src/auth/options.js';
import { createListenBus } from '../src/subscriptions.js';
import { freePort, startHttp } from '../src/testing/index.js';
import { createDemoServer } from './fixtures/demoServer.js';
import { type OpenStream, openListen } from './fixtures/rawHttp.js';

const ACK = 'notifications/subscriptions/acknowledged';
const app = () => ({ createServer: () => createDemoServer('listens'), bus: createListenBus().bus });

/** The JSON-RPC error a refused listen request got (its whole body), once the response ended. */
async function refusal(stream: OpenStream): Promise<{ code: number; message: string }> {
  await stream.waitFor('"error"');
  return (JSON.parse(stream.text()) as { error: { code: number; message: string } }).error;
}

/** A listen request on a raw socket whose client then half-closes it (sends FIN, as a client that left may). */
async function halfClosedListen(url: string, id: string): Promise<{ socket: Socket; text: () => string }> {
  const target = new URL(url);
  const socket = connect({ host: target.hostname, port: Number(target.port) });
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
      notifications: { resourcesListChanged: true },
    },
  });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    `POST /mcp HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
      `mcp-protocol-version: 2026-07-28\r\nmcp-method: subscriptions/listen\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (!text.includes(ACK)) return;
      socket.off('data', check);
      resolve();
    };
    socket.on('data', check);
    socket.once('close', () => reject(new Error(`closed before the ack: ${text}`)));
  });
  socket.end();
  return { socket, text: () => text };
}

describe('subscriptions/listen slots over HTTP', () => {
  it("refuses one stream over a principal's cap, naming the flag, while another principal still opens one", async () => {
    await using http = await startHttp(app(), { maxListensPerPrincipal: 2 });
    const mine = [await openListen(http.url, 'a1'), await openListen(http.url, 'a2')];
    await Promise.all(mine.map((s) => s.waitFor(ACK)));
    const third = await openListen(http.url, 'a3');
    expect(third.status).toBe(200);
    const error = await refusal(third);
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/^Subscription limit reached: .*2 open subscriptions\/listen streams.*--max-listens-per-principal/);
    expect(JSON.parse(third.text()).id).toBe('a3');

    const other = await openListen(http.url, 'b1', { localAddress: '127.0.0.2' });
    await other.waitFor(ACK);
    expect(http.running.listenCount()).toBe(3);

    // A stream closed by its client gives its slot back.
    mine[0]!.close();
    await expect.poll(() => http.running.listenCount()).toBe(2);
    const again = await openListen(http.url, 'a4');
    await again.waitFor(ACK);
    for (const s of [mine[1]!, other, again]) expect(s.closed()).toBe(false);
    for (const s of [mine[1]!, other, again]) s.close();
  });

  it('a full table takes the slot of the oldest stream of the principal holding the most, then refuses', async () => {
    await using http = await startHttp(app(), { maxListens: 3, maxListensPerPrincipal: 3 });
    const a = [await openListen(http.url, 'a1'), await openListen(http.url, 'a2'), await openListen(http.url, 'a3')];
    await Promise.all(a.map((s) => s.waitFor(ACK)));
    // 127.0.0.1 holds all 3: 127.0.0.2's stream takes the slot of its oldest.
    const b = await openListen(http.url, 'b1', { localAddress: '127.0.0.2' });
    await b.waitFor(ACK);
    await expect.poll(() => a[0]!.closed()).toBe(true);
    expect([a[1]!.closed(), a[2]!.closed(), b.closed()]).toEqual([false, false, false]);
    // 2 and 1 now: taking one of 127.0.0.1's would leave it fewer than 127.0.0.2, so a second stream of 127.0.0.2 is refused.
    const b2 = await openListen(http.url, 'b2', { localAddress: '127.0.0.2' });
    expect((await refusal(b2)).message).toMatch(/the server has 3 open subscriptions\/listen streams \(its --max-listens\)/);
    // A third principal, holding none, takes one of 127.0.0.1's two.
    const c = await openListen(http.url, 'c1', { localAddress: '127.0.0.3' });
    await c.waitFor(ACK);
    await expect.poll(() => a[1]!.closed()).toBe(true);
    expect([a[2]!.closed(), b.closed(), c.closed()]).toEqual([false, false, false]);
    expect(http.running.listenCount()).toBe(3);
    for (const s of [a[2]!, b, c]) s.close();
  });

  it('a full table takes the slot of a stream whose client is gone before any other', async () => {
    await using http = await startHttp(app(), { maxListens: 2, maxListensPerPrincipal: 2 });
    const older = await openListen(http.url, 'a1');
    await older.waitFor(ACK);
    const gone = await halfClosedListen(http.url, 'a2');
    expect(http.running.listenCount()).toBe(2);
    // The newcomer is 127.0.0.1 too: fairness alone would refuse it, but the half-closed stream is reclaimed.
    const fresh = await openListen(http.url, 'a3');
    await fresh.waitFor(ACK);
    await expect.poll(() => gone.socket.destroyed).toBe(true);
    expect(older.closed()).toBe(false);
    expect(http.running.listenCount()).toBe(2);
    older.close();
    fresh.close();
  });

  it("with OAuth, the principal is the token's subject: another user from the same address still opens a stream", async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    await using as = await startAuthServer({ resources: { [resource]: { scopes: ['test:read'] } } });
    const config = parseAuthConfig(['--oauth-issuer', as.issuer, '--oauth-audience', resource], {});
    if (!config) throw new Error('OAuth config expected');
    const guard = createAuthGuard(config, { scopes: { tools: {} }, resourceName: 'listens' });
    await using http = await startHttp(app(), { port, auth: guard, maxListensPerPrincipal: 1 });
    const bearer = async (login: string) => ({
      Authorization: `Bearer ${await as.authorizationCodeToken({ resource, scope: 'test:read', login })}`,
    });
    const alice = await bearer('alice');
    const first = await openListen(http.url, 'a1', { headers: alice });
    await first.waitFor(ACK);
    expect((await refusal(await openListen(http.url, 'a2', { headers: alice }))).message).toMatch(/--max-listens-per-principal/);
    const bob = await openListen(http.url, 'b1', { headers: await bearer('bob') });
    await bob.waitFor(ACK);
    first.close();
    bob.close();
  });
});
