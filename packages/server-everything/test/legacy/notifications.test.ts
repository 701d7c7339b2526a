import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLegacyServer } from '../../src/profiles/legacy/index.js';
import { simulatedLogMessages } from '../../src/shared/logMessages.js';
import { createTestClock, recordIntervals } from '../clock.js';
import { until, wire, wireLegacy } from './helpers.js';

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** `Math.random` walks through the eight messages in order, so every level comes up in eight ticks. */
function cycleRandom() {
  let i = 0;
  vi.spyOn(Math, 'random').mockImplementation(() => (i++ % 8) / 8);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('legacy simulated logging', () => {
  it('sends the eight reference messages (no logger, no session suffix over stdio) while no level is set', async () => {
    cycleRandom();
    const clock = createTestClock();
    await using ours = await wireLegacy({ intervals: { loggingMs: 5, resourceUpdatesMs: 0 }, scheduler: clock.scheduler });
    await until(() => ours.logs.length >= 1); // the roots line
    await clock.advance(8 * 5); // eight ticks
    await ours.client.ping(); // a tick's message would be ahead of the answer on the in-memory pair
    expect(ours.logs).toHaveLength(9);
    const [roots, ...simulated] = ours.logs;
    expect(roots).toEqual({ level: 'info', logger: 'everything-server', data: 'Client does not support MCP roots protocol' });
    expect(simulated.slice(0, 8)).toEqual(simulatedLogMessages(undefined));
    expect(simulated.slice(0, 8).map((m) => m.data)).toEqual([
      'Debug-level message',
      'Info-level message',
      'Notice-level message',
      'Warning-level message',
      'Error-level message',
      'Critical-level message',
      'Alert level-message',
      'Emergency-level message',
    ]);
  });

  it('drops messages below the level the client set', async () => {
    cycleRandom();
    const clock = createTestClock();
    await using ours = await wireLegacy({ intervals: { loggingMs: 5, resourceUpdatesMs: 0 }, scheduler: clock.scheduler });
    await until(() => ours.logs.length >= 1); // the roots line
    await ours.client.setLoggingLevel('error');
    const from = ours.logs.length;
    await clock.advance(16 * 5); // two full cycles of eight ticks: four of each cycle pass
    await ours.client.ping();
    expect(ours.logs).toHaveLength(from + 8);
    const levels = ours.logs.slice(from).map((m) => m.level);
    expect(levels.every((level) => LEVELS.indexOf(level) >= LEVELS.indexOf('error'))).toBe(true);
    expect(new Set(levels)).toEqual(new Set(['error', 'critical', 'alert', 'emergency']));
  });
});

describe('legacy subscriptions', () => {
  it('sends notifications/resources/updated for subscribed URIs only, until unsubscribed', async () => {
    const clock = createTestClock();
    await using ours = await wireLegacy({ intervals: { loggingMs: 0, resourceUpdatesMs: 5 }, scheduler: clock.scheduler });
    await ours.client.subscribeResource({ uri: 'test://static/resource/1' });
    await ours.client.subscribeResource({ uri: 'test://anything/at/all' });
    await clock.advance(2 * 5); // two rounds
    await ours.client.ping();
    expect(ours.updates).toEqual([
      'test://static/resource/1',
      'test://anything/at/all',
      'test://static/resource/1',
      'test://anything/at/all',
    ]);
    await ours.client.unsubscribeResource({ uri: 'test://static/resource/1' });
    const from = ours.updates.length;
    await clock.advance(3 * 5);
    await ours.client.ping();
    expect(ours.updates.slice(from)).toEqual(['test://anything/at/all', 'test://anything/at/all', 'test://anything/at/all']);
  });

  it('sends nothing without subscriptions', async () => {
    const clock = createTestClock();
    await using ours = await wireLegacy({ intervals: { loggingMs: 0, resourceUpdatesMs: 5 }, scheduler: clock.scheduler });
    await ours.client.ping();
    await clock.advance(8 * 5); // eight rounds
    await ours.client.ping(); // a round's notification would be ahead of the answer on the in-memory pair
    expect(ours.updates).toEqual([]);
    expect(clock.pending).toBe(1); // the rounds run, with nothing to send
  });
});

describe('legacy roots log lines', () => {
  it('logs the number of initial roots, and of the roots after roots/list_changed', async () => {
    let roots = [{ uri: 'file:///a' }, { uri: 'file:///b' }];
    await using ours = await wireLegacy(
      {},
      { capabilities: { roots: { listChanged: true } }, setup: (c) => c.setRequestHandler(ListRootsRequestSchema, () => ({ roots })) },
    );
    await until(() => ours.logs.length >= 1);
    roots = [{ uri: 'file:///c' }];
    await ours.client.sendRootsListChanged();
    await until(() => ours.logs.length >= 2);
    expect(ours.logs).toEqual([
      { level: 'info', logger: 'everything-server', data: 'Initial roots received: 2 root(s) from client' },
      { level: 'info', logger: 'everything-server', data: 'Roots updated: 1 root(s) received from client' },
    ]);
  });

  it('logs an error when the client fails roots/list, initially and after list_changed', async () => {
    await using ours = await wireLegacy(
      {},
      {
        capabilities: { roots: { listChanged: true } },
        setup: (c) =>
          c.setRequestHandler(ListRootsRequestSchema, () => {
            throw Object.assign(new Error('no roots today'), { code: -32603 });
          }),
      },
    );
    await until(() => ours.logs.length >= 1);
    await ours.client.sendRootsListChanged();
    await until(() => ours.logs.length >= 2);
    expect(ours.logs).toEqual([
      {
        level: 'error',
        logger: 'everything-server',
        data: 'Failed to request initial roots from client: MCP error -32603: no roots today',
      },
      { level: 'error', logger: 'everything-server', data: 'Failed to request roots from client: MCP error -32603: no roots today' },
    ]);
  });
});

describe('legacy intervals', () => {
  it('start on initialized, are unref’d, and stop when the session’s server closes', async () => {
    const { scheduler, created, cleared } = recordIntervals();
    const server = createLegacyServer({ intervals: { loggingMs: 1111, resourceUpdatesMs: 2222 }, scheduler });
    expect(created).toEqual([]); // nothing before a client initializes
    const ours = await wire(server);
    const mine = created.filter((c) => c.ms === 1111 || c.ms === 2222);
    expect(mine.map((c) => c.ms).sort()).toEqual([1111, 2222]);
    expect(mine.every((c) => !(c.handle as NodeJS.Timeout).hasRef())).toBe(true);
    expect(mine.some((c) => cleared.has(c.handle))).toBe(false);
    await ours.client.notification({ method: 'notifications/initialized' }); // a repeat starts nothing more
    await ours.client.ping();
    expect(created.filter((c) => c.ms === 1111 || c.ms === 2222)).toHaveLength(2);
    await ours[Symbol.asyncDispose]();
    expect(mine.every((c) => cleared.has(c.handle))).toBe(true);
  });

  it('use the reference periods by default (10 s updates, 15 s logs)', async () => {
    const { scheduler, created } = recordIntervals();
    await using _ours = await wire(createLegacyServer({ scheduler }));
    expect(created.map((c) => c.ms)).toEqual([10_000, 15_000]);
  });
});
