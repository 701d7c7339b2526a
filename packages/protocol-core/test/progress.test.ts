import type { Progress } from '@modelcontextprotocol/client';
import type { Notification } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createMcpServer, defineTool, registerTools } from '../src/define.js';
import { createProgressReporter, type ProgressOptions } from '../src/progress.js';
import { textResult } from '../src/results.js';
import { connectInMemory } from '../src/testing/index.js';

/** The global timer (faked by `fakeClock`, unlike node:timers/promises): the test drives the handler's pauses. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Moves the fake clock in `stepMs` steps until `call` settles; returns the clock time that took. */
async function drive(call: Promise<unknown>, stepMs: number): Promise<number> {
  let settled = false;
  void call.then(
    () => (settled = true),
    () => (settled = true),
  );
  const started = performance.now();
  while (!settled) await vi.advanceTimersByTimeAsync(stepMs);
  await call;
  return performance.now() - started;
}

/** A server whose `work` tool reports `steps` measured steps, `gapMs` apart, then `beats` of unmeasured work. */
function progressServer(options: ProgressOptions = {}) {
  const server = createMcpServer({ name: 'progress-test', version: '0.0.0' });
  const work = defineTool({
    name: 'work',
    title: 'Work',
    description: 'Reports progress',
    input: { steps: z.number().int(), gapMs: z.number().int(), workingMs: z.number().int().default(0) },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async ({ steps, gapMs, workingMs }, _ctx: unknown, extra) => {
      const progress = createProgressReporter(extra, options);
      try {
        for (let i = 1; i <= steps; i++) {
          progress.update(i, steps, () => `step ${i} of ${steps}`);
          if (gapMs > 0) await pause(gapMs);
        }
        if (workingMs > 0) {
          const since = performance.now();
          progress.working(() => `working for ${Math.round(performance.now() - since)} ms`);
          await pause(workingMs);
        }
        return textResult(`did ${steps} steps`);
      } finally {
        progress.end();
      }
    },
  });
  registerTools(server, {}, [work]);
  return server;
}

function expectIncreasing(seen: Progress[]): void {
  for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
}

describe('createProgressReporter', () => {
  it('sends measured progress with its total and message, increasing, throttled to one per interval', async () => {
    await using pair = await connectInMemory(progressServer({ delayMs: 0, intervalMs: 100 }));
    fakeClock();
    const seen: Progress[] = [];
    const call = pair.client.callTool(
      { name: 'work', arguments: { steps: 60, gapMs: 10 } },
      {
        onprogress: (p) => seen.push(p),
      },
    );
    const elapsed = await drive(call, 10);
    expect(elapsed).toBe(600); // the clock is the test's: 60 gaps of 10 ms
    expect(seen.length).toBeGreaterThan(0);
    expectIncreasing(seen);
    for (const p of seen) {
      expect(p.total).toBe(60);
      expect(p.message).toBe(`step ${p.progress} of 60`);
    }
    // One per interval: at 0, 100, … 600 ms, far fewer than the 60 updates.
    expect(seen.length).toBe(Math.floor(elapsed / 100) + 1);
  });

  it('sends nothing for a call that is over within the delay', async () => {
    // A delay no machine's call outlasts (the default 250 ms is shorter than a loaded machine's 1000 steps).
    await using pair = await connectInMemory(progressServer({ delayMs: 60_000 }));
    const seen: unknown[] = [];
    const res = await pair.client.callTool({ name: 'work', arguments: { steps: 1000, gapMs: 0 } }, { onprogress: (p) => seen.push(p) });
    expect(res.content).toEqual([{ type: 'text', text: 'did 1000 steps' }]);
    expect(seen).toEqual([]);
  });

  it('sends a heartbeat while unmeasured work runs, one above the last progress each time', async () => {
    await using pair = await connectInMemory(progressServer({ delayMs: 0, intervalMs: 50 }));
    fakeClock();
    const seen: Progress[] = [];
    const call = pair.client.callTool(
      { name: 'work', arguments: { steps: 5, gapMs: 0, workingMs: 400 } },
      {
        onprogress: (p) => seen.push(p),
      },
    );
    await drive(call, 10);
    const beats = seen.filter((p) => p.message?.startsWith('working for'));
    expect(beats.length).toBeGreaterThan(1);
    expectIncreasing(seen);
    for (const beat of beats) expect(beat.total).toBeUndefined();
    // Consecutive heartbeats count up by one.
    for (let i = 1; i < beats.length; i++) expect(beats[i]!.progress).toBe(beats[i - 1]!.progress + 1);
  });

  it('sends nothing without a progressToken', async () => {
    await using pair = await connectInMemory(progressServer({ delayMs: 0, intervalMs: 20 }));
    const seen: unknown[] = [];
    pair.client.setNotificationHandler('notifications/progress', (n) => {
      seen.push(n);
    });
    fakeClock();
    await drive(pair.client.callTool({ name: 'work', arguments: { steps: 10, gapMs: 20, workingMs: 100 } }), 10);
    expect(seen).toEqual([]);
  });

  // The reporter alone is a pure timer: these drive its clock (setTimeout and performance.now) instead of waiting.
  const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('stops when the request is aborted or ended', async () => {
    fakeClock();
    const sent: Notification[] = [];
    const controller = new AbortController();
    const mcpReq = {
      _meta: { progressToken: 'tok' },
      signal: controller.signal,
      notify: async (n: Notification) => {
        sent.push(n);
      },
    };
    const extra = { mcpReq };
    const progress = createProgressReporter(extra, { delayMs: 0, intervalMs: 10 });
    expect(progress.active).toBe(true);
    progress.working(() => 'busy');
    await vi.advanceTimersByTimeAsync(60);
    expect(sent.length).toBe(7); // a heartbeat every 10 ms: at 0, 10, … 60
    controller.abort();
    const count = sent.length;
    progress.working(() => 'still busy');
    progress.update(1_000);
    await vi.advanceTimersByTimeAsync(60);
    expect(sent.length).toBe(count);
    expect(sent[0]).toEqual({ method: 'notifications/progress', params: { progressToken: 'tok', progress: 1, message: 'busy' } });

    const ended = createProgressReporter({ mcpReq: { ...mcpReq, signal: new AbortController().signal } }, { delayMs: 0, intervalMs: 10 });
    ended.update(5, 10, 'half');
    ended.end();
    await vi.advanceTimersByTimeAsync(40);
    expect(sent.length).toBe(count);
    // Already cancelled: inactive from the start.
    expect(createProgressReporter(extra).active).toBe(false);
    expect(createProgressReporter({ mcpReq: { ...mcpReq, _meta: {} } }).active).toBe(false);
  });

  it('drops a total below the progress and values not above the last one sent', async () => {
    fakeClock();
    const sent: Progress[] = [];
    const progress = createProgressReporter(
      {
        mcpReq: {
          _meta: { progressToken: 7 },
          notify: async (n: Notification) => {
            sent.push(n.params as Progress);
          },
        },
      },
      { delayMs: 0, intervalMs: 20 },
    );
    progress.update(10, 5, 'ten');
    await vi.advanceTimersByTimeAsync(40);
    progress.update(8, 20, 'eight');
    await vi.advanceTimersByTimeAsync(40);
    progress.update(12, 20, 'twelve');
    await vi.advanceTimersByTimeAsync(40);
    progress.end();
    expect(sent).toEqual([
      { progressToken: 7, progress: 10, message: 'ten' },
      { progressToken: 7, progress: 12, total: 20, message: 'twelve' },
    ]);
  });
});
