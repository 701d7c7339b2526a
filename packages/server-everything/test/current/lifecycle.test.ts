/**
 * Per-session state and its end: every timer a session starts (the toggles' intervals, the research
 * stages, the long-running operation, the first roots/list, the task store's TTLs) is gone once its server
 * closes, and none of them keeps the process alive. Fake timers make the pending ones countable.
 */
import { CreateTaskResultSchema } from '@modelcontextprotocol/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectCurrent, text } from './helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('closing a session', () => {
  it('clears every timer the session started', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const pair = await connectCurrent(
      { intervals: { loggingMs: 5000, resourceUpdatesMs: 5000, researchStageMs: 1000, rootsSyncDelayMs: 350 } },
      { capabilities: { roots: {} } },
    );
    const afterConnect = vi.getTimerCount(); // the roots/list delay
    expect(afterConnect).toBe(1);

    text(await pair.client.callTool({ name: 'toggle-simulated-logging', arguments: {} }));
    text(await pair.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} }));
    expect(vi.getTimerCount()).toBe(afterConnect + 2);

    await pair.client.request(
      { method: 'tools/call', params: { name: 'simulate-research-query', arguments: { topic: 'x' }, task: {} } },
      CreateTaskResultSchema,
    );
    // Its TTL in the task store, and (a few microtasks later) the first stage's sleep.
    await vi.waitFor(() => expect(vi.getTimerCount()).toBe(afterConnect + 4));

    void pair.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 100, steps: 1 } }).catch(() => {});
    // The operation's sleep, and the client's request timeout.
    await vi.waitFor(() => expect(vi.getTimerCount()).toBe(afterConnect + 6));

    await pair[Symbol.asyncDispose]();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops the intervals when the toggles are switched off', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    await using pair = await connectCurrent();
    await pair.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    await pair.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    expect(vi.getTimerCount()).toBe(2);
    await pair.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    await pair.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops a long-running operation whose request the client cancelled', async () => {
    await using pair = await connectCurrent();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const controller = new AbortController();
    const call = pair.client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 100, steps: 2 } },
      {
        signal: controller.signal,
      },
    );
    await vi.waitFor(() => expect(vi.getTimerCount()).toBe(2)); // the step's sleep and the client's request timeout
    controller.abort('enough');
    await expect(call).rejects.toThrow();
    await vi.waitFor(() => expect(vi.getTimerCount()).toBe(0));
  });

  it('keeps no timer that would hold the process open (all unref’d)', async () => {
    await using pair = await connectCurrent({ intervals: { loggingMs: 60_000, resourceUpdatesMs: 60_000 } });
    const count = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const baseline = count();
    await pair.client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    await pair.client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
    // getActiveResourcesInfo lists only timers that keep the event loop alive.
    expect(count()).toBe(baseline);
  });
});
