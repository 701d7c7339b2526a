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
    async advance(ms) {
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
    },
  };
}

/** An interval set through `recordIntervals().scheduler`. */
export interface RecordedInterval {
  handle: TimerId;
  ms: number;
}

/**
 * Node's timers (the server's default, unref'd), recording each interval set and cleared through them: for tests
 * whose intervals must really tick (over HTTP) and that check which ones a session started and stopped.
 */
export function recordIntervals(): { scheduler: Scheduler; created: RecordedInterval[]; cleared: Set<TimerId> } {
  const created: RecordedInterval[] = [];
  const cleared = new Set<TimerId>();
  const scheduler: Scheduler = {
    ...realTimers,
    setInterval(callback, ms) {
      const handle = realTimers.setInterval(callback, ms);
      created.push({ handle, ms });
      return handle;
    },
    clearInterval(handle) {
      cleared.add(handle);
      realTimers.clearInterval(handle);
    },
  };
  return { scheduler, created, cleared };
}
