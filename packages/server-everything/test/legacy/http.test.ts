import { startHttp } from '@mcpkit/protocol-core/testing';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createEverythingServer } from '../../src/server.js';
import { createTestClock, recordIntervals } from '../clock.js';
import { type LogLine, until } from './helpers.js';

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const below = (level: string, threshold: string) => LEVELS.indexOf(level) < LEVELS.indexOf(threshold);

function listen(client: Client) {
  const logs: LogLine[] = [];
  const updates: string[] = [];
  client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params as LogLine));
  client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
  const transport = client.transport as StreamableHTTPClientTransport;
  return { client, transport, logs, updates, sessionId: transport.sessionId };
}

describe('legacy profile over Streamable HTTP: one state per session', () => {
  it('log levels and subscriptions do not leak between sessions; log lines name their session', async () => {
    const clock = createTestClock(); // the simulations' (the HTTP runner keeps its real timers)
    await using http = await startHttp({
      // The default profile, through the package's own factory.
      createServer: () =>
        createEverythingServer({ profile: 'legacy', intervals: { loggingMs: 5, resourceUpdatesMs: 5 }, scheduler: clock.scheduler }),
    });
    const a = listen(await http.connect());
    const b = listen(await http.connect());
    expect(a.sessionId).toBeTruthy();
    expect(a.sessionId).not.toBe(b.sessionId);

    await a.client.setLoggingLevel('critical');
    await a.client.subscribeResource({ uri: 'test://static/resource/1' });
    const fromA = a.logs.length;
    // B, which set no level, keeps getting low-level messages; A gets only critical and above.
    await clock.advanceUntil(
      () => b.logs.some((m) => below(m.level, 'critical')) && a.logs.length >= fromA + 3 && a.updates.length >= 3,
      5,
    );
    expect(a.logs.slice(fromA).every((m) => !below(m.level, 'critical'))).toBe(true);
    // Only A subscribed.
    expect(new Set(a.updates)).toEqual(new Set(['test://static/resource/1']));
    expect(b.updates).toEqual([]);
    // Each session's simulated log lines carry its own session id.
    expect(a.logs.slice(fromA).every((m) => String(m.data).endsWith(` - SessionId ${a.sessionId}`))).toBe(true);
    expect(b.logs.length).toBeGreaterThan(0);
    expect(b.logs.filter((m) => m.logger === undefined).every((m) => String(m.data).endsWith(` - SessionId ${b.sessionId}`))).toBe(true);
  });

  it('closing one session stops its intervals; the other keeps going', async () => {
    const clock = createTestClock();
    const { scheduler, created, cleared } = recordIntervals(clock.scheduler); // ours, not the HTTP runner's

    const servers: McpServer[] = [];
    await using http = await startHttp({
      createServer: () => {
        const server = createEverythingServer({ profile: 'legacy', intervals: { loggingMs: 7, resourceUpdatesMs: 7 }, scheduler });
        servers.push(server);
        return server;
      },
    });
    const a = listen(await http.connect());
    await until(() => created.length === 2);
    const b = listen(await http.connect());
    await until(() => created.length === 4);
    const [aUpdates, aLogs, bUpdates, bLogs] = created.map((c) => c.handle);
    await b.client.subscribeResource({ uri: 'test://static/resource/2' });

    await a.transport.terminateSession();
    await until(() => cleared.has(aUpdates!) && cleared.has(aLogs!));
    expect(servers[0]?.isConnected()).toBe(false);
    expect(http.running.sessionCount()).toBe(1);
    expect(cleared.has(bUpdates!) || cleared.has(bLogs!)).toBe(false);

    const from = b.updates.length;
    await clock.advanceUntil(() => b.updates.length >= from + 2, 7);
    expect(servers[1]?.isConnected()).toBe(true);
  });

  it('stateless mode: each request’s server stops the intervals it started', async () => {
    const { scheduler, created, cleared } = recordIntervals(createTestClock().scheduler); // no tick needed
    await using http = await startHttp(
      { createServer: () => createEverythingServer({ profile: 'legacy', intervals: { loggingMs: 9, resourceUpdatesMs: 9 }, scheduler }) },
      { stateless: true },
    );
    const client = await http.connect();
    expect((await client.callTool({ name: 'echo', arguments: { message: 'hi' } })).content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
    expect(created.length).toBeGreaterThan(0); // the server that got notifications/initialized started them
    await until(() => created.every(({ handle }) => cleared.has(handle)));
  });
});
