/** A `LockClock` that moves only when the test moves it: a wait for the lock never sits out real time. */
import { trackSettled } from '@mcpkit/test-utils/settled';
import type { LockClock } from '../../src/server.js';

export interface DrivenClock extends LockClock {
  /** Timers set and neither fired nor cleared: above 0 while a call waits for the lock (its back-off, its notice). */
  readonly pending: number;
  /** Moves the clock `ms` forward, firing each due timer in time order; after each, lets what it started run until it waits again. */
  advance(ms: number): Promise<void>;
  /** Moves the clock to the next timer, however far, and fires it (a waiting call's next try). */
  next(): Promise<void>;
}

interface Timer {
  at: number;
  callback: () => void;
}

/** Lets everything that is not waiting on this clock run: promise jobs and the immediates behind them. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

export function drivenClock(start = Date.now()): DrivenClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, Timer>();
  const set = (callback: () => void, ms: number) => {
    const id = nextId++;
    timers.set(id, { at: now + Math.max(0, ms), callback });
    return id;
  };
  const first = (until = Number.POSITIVE_INFINITY) => {
    let found: [number, Timer] | undefined;
    for (const entry of timers) if (entry[1].at <= until && (!found || entry[1].at < found[1].at)) found = entry;
    return found;
  };
  const fire = async ([id, timer]: [number, Timer]) => {
    timers.delete(id);
    now = Math.max(now, timer.at);
    timer.callback();
    await settle();
  };
  return {
    now: () => now,
    sleep: (ms) => new Promise((resolve) => set(() => resolve(), ms)),
    setTimeout: set,
    clearTimeout: (id) => void timers.delete(id as number),
    get pending() {
      return timers.size;
    },
    async advance(ms) {
      const until = now + ms;
      await settle();
      for (let due = first(until); due; due = first(until)) await fire(due);
      now = until;
    },
    async next() {
      await settle();
      const due = first();
      if (due) await fire(due);
    },
  };
}

/** Whether `p` has settled by the next turn of the event loop. */
export const settled = async (p: Promise<unknown>) => {
  const done = trackSettled(p);
  await new Promise((r) => setImmediate(r));
  return done();
};
