/**
 * Session isolation over Streamable HTTP: the runner builds one server per session, and nothing of one
 * session (toggles, subscriptions, log level, session resources, URL-elicitation markers, timers) reaches
 * another. The reference keeps all of this in process-wide maps.
 */
import { startHttp } from '@mcpkit/protocol-core/testing';
import type { Client, LoggingMessageNotification, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { EverythingOptions } from '../../src/context.js';
import { createTestClock, recordIntervals } from '../clock.js';
import { currentServer, dataUri, FAST, text, until } from './helpers.js';

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

async function serve(options: EverythingOptions = {}) {
  return startHttp({ createServer: () => currentServer(options) });
}

function sessionIdOf(client: Client): string {
  return (client.transport as StreamableHTTPClientTransport).sessionId!;
}

function collectLogs(client: Client) {
  const logs: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params));
  return logs;
}

describe('session isolation over HTTP', () => {
  it('keeps the toggles per session, and names the session in texts and messages', async () => {
    const clock = createTestClock();
    await using http = await serve({ scheduler: clock.scheduler });
    const a = await http.connect();
    const b = await http.connect();
    const [idA, idB] = [sessionIdOf(a), sessionIdOf(b)];
    expect(idA).not.toBe(idB);
    const logsA = collectLogs(a);
    const logsB = collectLogs(b);

    expect(text(await a.callTool({ name: 'toggle-simulated-logging', arguments: {} }))).toMatch(
      new RegExp(`^Started simulated, random-leveled logging for session ${idA} at a 5 second pace`),
    );
    // B's first toggle starts B's logging: A's being on does not make it a "Stop".
    expect(text(await b.callTool({ name: 'toggle-subscriber-updates', arguments: {} }))).toMatch(/^Started simulated resource updated/);
    expect(text(await b.callTool({ name: 'toggle-simulated-logging', arguments: {} }))).toMatch(new RegExp(`for session ${idB} `));
    expect(text(await b.callTool({ name: 'toggle-simulated-logging', arguments: {} }))).toBe(
      `Stopped simulated logging for session ${idB}`,
    );

    await clock.advance(2 * FAST.loggingMs!);
    await until(() => logsA.length >= 3, 5000, 'A’s log messages');
    for (const log of logsA) expect(log.data).toMatch(new RegExp(` - SessionId ${idA}$`));
    expect(logsB.every((log) => String(log.data).endsWith(` - SessionId ${idB}`))).toBe(true);
    const [aCount, bCount] = [logsA.length, logsB.length];
    await clock.advance(4 * FAST.loggingMs!);
    await until(() => logsA.length >= aCount + 4, 5000, 'A’s next four messages');
    expect(logsB.length).toBe(bCount); // B stopped; A's messages never reach B
  });

  it('keeps the log level per session', async () => {
    const clock = createTestClock();
    await using http = await serve({ scheduler: clock.scheduler });
    const a = await http.connect();
    const b = await http.connect();
    const logsA = collectLogs(a);
    const logsB = collectLogs(b);
    await a.setLoggingLevel('emergency');
    await a.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    await b.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    await clock.advanceUntil(() => logsB.length >= 16 && logsA.length >= 1, FAST.loggingMs!); // messages in both sessions
    expect(new Set(logsA.map((l) => l.level))).toEqual(new Set(['emergency']));
    expect(new Set(logsB.map((l) => l.level)).size).toBeGreaterThan(1);
    for (const log of logsB) expect(LEVELS).toContain(log.level);
  });

  it('keeps subscriptions per session', async () => {
    const clock = createTestClock();
    await using http = await serve({ scheduler: clock.scheduler });
    const a = await http.connect();
    const b = await http.connect();
    const updatesA: string[] = [];
    const updatesB: string[] = [];
    a.setNotificationHandler('notifications/resources/updated', (n) => void updatesA.push(n.params.uri));
    b.setNotificationHandler('notifications/resources/updated', (n) => void updatesB.push(n.params.uri));
    await a.subscribeResource({ uri: 'demo://only-a' });
    await b.subscribeResource({ uri: 'demo://only-b' });
    await a.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    await clock.advanceUntil(() => updatesA.length >= 3, FAST.resourceUpdatesMs!); // A's updates
    expect(new Set(updatesA)).toEqual(new Set(['demo://only-a']));
    expect(updatesB).toEqual([]); // B subscribed but did not switch its updates on
  });

  it('keeps session resources per session', async () => {
    await using http = await serve();
    const a = await http.connect();
    const b = await http.connect();
    let bListChanged = 0;
    b.setNotificationHandler('notifications/resources/list_changed', () => void bListChanged++);
    const link = await a.callTool({ name: 'gzip-file-as-resource', arguments: { name: 'secret.gz', data: dataUri('only for A') } });
    const uri = 'demo://resource/session/secret.gz';
    expect(link.content).toEqual([{ type: 'resource_link', uri, name: 'secret.gz', mimeType: 'application/gzip' }]);
    expect((await a.listResources()).resources.map((r) => r.uri)).toContain(uri);
    expect((await b.listResources()).resources.map((r) => r.uri)).not.toContain(uri);
    // SDK v2's text for an unknown resource (SDK 1.x, and so the reference, said "Resource <uri> not found"); the v2
    // client's error carries the server's text as it is (the v1 client prefixed "MCP error -32602: ").
    await expect(b.readResource({ uri })).rejects.toMatchObject({
      code: -32602,
      message: `Resource not found: ${uri}`,
    });
    expect((await a.readResource({ uri })).contents[0]).toMatchObject({ uri, mimeType: 'application/gzip' });
    expect(bListChanged).toBe(0);
  });

  it('keeps the URL-elicitation retry markers per session', async () => {
    await using http = await serve();
    const caps = { capabilities: { elicitation: { url: {} } } };
    const a = await http.connect(caps);
    const b = await http.connect(caps);
    const args = { name: 'trigger-url-elicitation', arguments: { url: 'https://example.com/login', errorPath: true } };
    await expect(a.callTool(args)).rejects.toMatchObject({ code: -32042 });
    // The same call in another session is a first call there, not A's retry.
    await expect(b.callTool(args)).rejects.toMatchObject({ code: -32042 });
  });

  it('stops a session’s intervals when that session ends, and only that session’s', async () => {
    // The intervals started by the current profile's code (the SDK's SSE keep-alives come and go).
    const clock = createTestClock();
    const { scheduler, created, cleared } = recordIntervals(clock.scheduler);
    const live = () => created.filter(({ handle }) => !cleared.has(handle)).length;
    await using http = await serve({ scheduler });
    const a = await http.connect();
    const b = await http.connect();
    for (const client of [a, b]) {
      await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
      await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    }
    expect(live()).toBe(4);
    await (a.transport as StreamableHTTPClientTransport).terminateSession();
    await until(() => live() === 2, 5000, 'A’s intervals to stop');
    const logsB = collectLogs(b);
    await clock.advanceUntil(() => logsB.length >= 2, FAST.loggingMs!); // B's log messages, still coming
    await (b.transport as StreamableHTTPClientTransport).terminateSession();
    await until(() => live() === 0, 5000, 'B’s intervals to stop');
  });
});
