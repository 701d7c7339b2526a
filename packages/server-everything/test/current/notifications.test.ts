/**
 * What the server sends on its own: progress (string and numeric tokens), simulated log messages (and the
 * client's log level), resource update notifications for subscriptions, roots requests.
 */
import type { LoggingMessageNotification, Root } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { simulatedLogMessages } from '../../src/shared/logMessages.js';
import { createTestClock } from '../clock.js';
import { connectCurrent, FAST, text, until } from './helpers.js';

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

describe('progress', () => {
  it('reports each step to a numeric progress token (the SDK client’s own)', async () => {
    const clock = createTestClock();
    await using pair = await connectCurrent({ scheduler: clock.scheduler });
    const seen: { progress: number; total?: number }[] = [];
    const result = await clock.run(
      pair.client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.03, steps: 3 } },
        {
          onprogress: (p) => void seen.push(p),
        },
      ),
    );
    expect(text(result)).toBe('Long running operation completed. Duration: 0.03 seconds, Steps: 3.');
    expect(clock.now).toBe(30); // three steps of 10 ms
    expect(seen).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
  });

  it('echoes a string progress token as given, and sends nothing without one', async () => {
    const clock = createTestClock();
    await using pair = await connectCurrent({ scheduler: clock.scheduler });
    const tokens: unknown[] = [];
    pair.client.setNotificationHandler('notifications/progress', (n) => void tokens.push(n.params.progressToken));
    const call = (meta?: { progressToken: string | number }) =>
      clock.run(
        pair.client.request({
          method: 'tools/call',
          params: { name: 'trigger-long-running-operation', arguments: { duration: 0.01, steps: 2 }, ...(meta ? { _meta: meta } : {}) },
        }),
      );
    await call();
    expect(tokens).toEqual([]);
    await call({ progressToken: 'op-7' });
    await call({ progressToken: 0 });
    expect(tokens).toEqual(['op-7', 'op-7', 0, 0]);
  });
});

describe('simulated logging', () => {
  it('sends random-leveled messages once started, none once stopped', async () => {
    const clock = createTestClock();
    await using pair = await connectCurrent({ scheduler: clock.scheduler });
    const messages: LoggingMessageNotification['params'][] = [];
    pair.client.setNotificationHandler('notifications/message', (n) => void messages.push(n.params));
    await pair.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    await clock.advance(4 * FAST.loggingMs!);
    await until(() => messages.length >= 5, 5000, 'five log messages');
    const texts = simulatedLogMessages(undefined);
    for (const message of messages) {
      expect(texts).toContainEqual({ level: message.level, data: message.data });
      expect(message.logger).toBeUndefined();
    }
    await pair.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    const stoppedAt = messages.length;
    await clock.advance(6 * FAST.loggingMs!);
    await pair.client.ping(); // a tick's message would be ahead of the answer on the in-memory pair
    expect(messages.length).toBe(stoppedAt);
    expect(clock.pending).toBe(0);
  });

  it('respects the level the client set', async () => {
    const clock = createTestClock();
    await using pair = await connectCurrent({ scheduler: clock.scheduler });
    const levels: string[] = [];
    pair.client.setNotificationHandler('notifications/message', (n) => void levels.push(n.params.level));
    await pair.client.setLoggingLevel('critical');
    await pair.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    // 3 of the 8 levels pass; 10 messages take ~27 ticks, and an unfiltered stream would show a low level almost surely.
    await clock.advanceUntil(() => levels.length >= 10, FAST.loggingMs!);
    expect(new Set(levels).size).toBeGreaterThan(0);
    for (const level of levels) expect(LEVELS.indexOf(level)).toBeGreaterThanOrEqual(LEVELS.indexOf('critical'));
  });

  it('has the reference’s messages, typo and session suffix included', () => {
    expect(simulatedLogMessages('abc').map((m) => m.data)).toEqual([
      'Debug-level message - SessionId abc',
      'Info-level message - SessionId abc',
      'Notice-level message - SessionId abc',
      'Warning-level message - SessionId abc',
      'Error-level message - SessionId abc',
      'Critical-level message - SessionId abc',
      'Alert level-message - SessionId abc',
      'Emergency-level message - SessionId abc',
    ]);
  });
});

describe('resource subscriptions', () => {
  it('acknowledges subscribe and unsubscribe with the reference’s log messages', async () => {
    await using pair = await connectCurrent();
    const data: unknown[] = [];
    pair.client.setNotificationHandler('notifications/message', (n) => void data.push([n.params.level, n.params.data]));
    await pair.client.subscribeResource({ uri: 'demo://resource/dynamic/text/1' });
    await pair.client.unsubscribeResource({ uri: 'demo://never-subscribed' });
    expect(data).toEqual([
      ['info', 'Received Subscribe Resource request for URI: demo://resource/dynamic/text/1 '],
      ['info', 'Received Unsubscribe Resource request: demo://never-subscribed '],
    ]);
  });

  it('sends updates for the subscribed URIs only while the toggle is on', async () => {
    const clock = createTestClock();
    await using pair = await connectCurrent({ scheduler: clock.scheduler });
    const updates: string[] = [];
    pair.client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
    await pair.client.subscribeResource({ uri: 'demo://a' });
    await pair.client.subscribeResource({ uri: 'demo://b' });
    await clock.advance(4 * FAST.resourceUpdatesMs!);
    await pair.client.ping();
    expect(updates).toEqual([]); // off by default
    expect(clock.pending).toBe(0);

    await pair.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    await clock.advance(2 * FAST.resourceUpdatesMs!);
    await until(() => updates.filter((u) => u === 'demo://b').length >= 3, 5000, 'three updates of demo://b');
    expect(updates.slice(0, 2)).toEqual(['demo://a', 'demo://b']);

    await pair.client.unsubscribeResource({ uri: 'demo://a' });
    const before = updates.length;
    await clock.advance(3 * FAST.resourceUpdatesMs!);
    await until(() => updates.length >= before + 3, 5000, 'more updates');
    expect(updates.slice(before)).toEqual(['demo://b', 'demo://b', 'demo://b']);

    await pair.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    const stoppedAt = updates.length;
    await clock.advance(6 * FAST.resourceUpdatesMs!);
    await pair.client.ping();
    expect(updates.length).toBe(stoppedAt);
    expect(clock.pending).toBe(0);
  });
});

describe('roots', () => {
  const ROOTS: Root[] = [{ uri: 'file:///work/project', name: 'project' }, { uri: 'file:///tmp' }];

  it('requests the roots after initialized, logs it, and lists them', async () => {
    await using pair = await connectCurrent({}, { capabilities: { roots: { listChanged: true } } });
    let requests = 0;
    const logs: unknown[] = [];
    pair.client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params));
    pair.client.setRequestHandler('roots/list', () => {
      requests++;
      return { roots: ROOTS };
    });
    await until(() => logs.length > 0, 5000, 'the roots log message');
    expect(logs).toEqual([{ level: 'info', logger: 'everything-server', data: 'Roots updated: 2 root(s) received from client' }]);
    expect(text(await pair.client.callTool({ name: 'get-roots-list', arguments: {} }))).toBe(
      'Current MCP Roots (2 total):\n\n1. project\n   URI: file:///work/project\n\n2. Unnamed Root\n   URI: file:///tmp\n\n' +
        "Note: This server demonstrates the roots protocol capability but doesn't actually access files. " +
        'The roots are provided by the MCP client and can be used by servers that need file system access.',
    );
    expect(requests).toBe(1); // cached
  });

  it('asks again when the client says its roots changed', async () => {
    await using pair = await connectCurrent({}, { capabilities: { roots: { listChanged: true } } });
    let roots: Root[] = [];
    let requests = 0;
    pair.client.setRequestHandler('roots/list', () => {
      requests++;
      return { roots };
    });
    expect(text(await pair.client.callTool({ name: 'get-roots-list', arguments: {} }))).toMatch(
      /^The client supports roots but no roots are currently configured\.\n\nThis could mean:\n1\. /,
    );
    const before = requests;
    roots = ROOTS;
    await pair.client.sendRootsListChanged();
    await until(() => requests > before, 5000, 'a new roots/list');
    // The answer to that request is handled after the client sent it: ask until the tool reports the new roots.
    await expect
      .poll(async () => text(await pair.client.callTool({ name: 'get-roots-list', arguments: {} })), { timeout: 5000, interval: 5 })
      .toMatch(/^Current MCP Roots \(2 total\):/);
  });
});
