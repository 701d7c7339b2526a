import { trackSettled } from '@mcpkit/test-utils/settled';
import { realTimers, type Scheduler, type TimerId } from '../src/shared/scheduler.js';

/** A `Scheduler` that only moves when the test advances it; the SDK and the client keep their real timers. */
export interface TestClock {
  scheduler: Scheduler;
  /** Milliseconds advanced so far. */
  readonly now: number;
  /** How many timeouts and intervals are set and not cleared (fired timeouts are gone). */
  readonly pending: number;
  /**
   * Moves the clock `ms` forward, firing each due timer in time order (an interval as often as it falls due);
   * after each, lets the work it started run (settled promises, in-memory messages) until it waits again.
   */
  advance(ms: number): Promise<void>;
  /**
   * Moves the clock `stepMs` at a time (as `advance`) until `check()` holds, for what a simulation's random or
   * transported ticks make happen eventually; fails after `maxSteps` steps (default 1000).
   */
  advanceUntil(check: () => boolean, stepMs: number, maxSteps?: number): Promise<void>;
  /**
   * Lets `work` run to its end: whenever it waits on this clock, moves the clock to the next due timer (an
   * operation's steps, a task's stages); while it waits on anything else (a client's answer, its real polling
   * timers, I/O), lets that run. Fails when the clock would pass `limitMs` from now (default 60 000). For work that
   * runs no interval meanwhile: an interval is always due, so the clock would chase it up to the limit.
   */
  run<T>(work: Promise<T>, limitMs?: number): Promise<T>;
}

interface Timer {
  at: number;
  every: number | undefined;
  callback: () => void;
}

/** Lets everything that is not waiting on a timer run: promise jobs and the immediates behind them. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

export function createTestClock(): TestClock {
  let now = 0;
  let nextId = 1;
  const timers = new Map<number, Timer>();
  const set = (callback: () => void, ms: number, repeat: boolean) => {
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
    const id = nextId++;
    timers.set(id, { at: now + delay, every: repeat ? Math.max(delay, 1) : undefined, callback });
    return id;
  };
  const clear = (id: unknown) => void timers.delete(id as number);
  const due = (until: number) => {
    let first: [number, Timer] | undefined;
    for (const entry of timers) if (entry[1].at <= until && (!first || entry[1].at < first[1].at)) first = entry;
    return first;
  };
  const advance = async (ms: number) => {
    const until = now + ms;
    await settle();
    for (let next = due(until); next; next = due(until)) {
      const [id, timer] = next;
      now = timer.at;
      if (timer.every === undefined) timers.delete(id);
      else timer.at += timer.every;
      timer.callback();
      await settle();
    }
    now = until;
  };
  return {
    scheduler: {
      setTimeout: (callback, ms) => set(callback, ms, false),
      setInterval: (callback, ms) => set(callback, ms, true),
      clearTimeout: clear,
      clearInterval: clear,
    },
    get now() {
      return now;
    },
    get pending() {
      return timers.size;
    },
    advance,
    async advanceUntil(check, stepMs, maxSteps = 1000) {
      for (let step = 0; !check(); step++) {
        if (step === maxSteps) throw new Error(`still not there after ${maxSteps} steps of ${stepMs} ms on the test clock`);
        await advance(stepMs);
      }
    },
    async run(work, limitMs = 60_000) {
      const done = trackSettled(work);
      const limit = now + limitMs;
      for (await settle(); !done(); await settle()) {
        const next = due(Number.POSITIVE_INFINITY);
        if (!next) continue;
        if (next[1].at > limit) throw new Error(`the work was still waiting ${limitMs} ms into the test clock`);
        await advance(next[1].at - now);
      }
      return work;
    },
  };
}

/** An interval set through `recordIntervals().scheduler`. */
export interface RecordedInterval {
  handle: TimerId;
  ms: number;
}

/**
 * `base` (default: Node's timers, the server's default, unref'd), recording each interval set and cleared through
 * it: for tests that check which intervals a session started and stopped (on Node's timers: and that they are unref'd).
 */
export function recordIntervals(base: Scheduler = realTimers): {
  scheduler: Scheduler;
  created: RecordedInterval[];
  cleared: Set<TimerId>;
} {
  const created: RecordedInterval[] = [];
  const cleared = new Set<TimerId>();
  const scheduler: Scheduler = {
    setTimeout: (callback, ms) => base.setTimeout(callback, ms),
    clearTimeout: (timer) => base.clearTimeout(timer),
    setInterval(callback, ms) {
      const handle = base.setInterval(callback, ms);
      created.push({ handle, ms });
      return handle;
    },
    clearInterval(handle) {
      cleared.add(handle);
      base.clearInterval(handle);
    },
  };
  return { scheduler, created, cleared };
}
