/**
 * The order in which conversions get a worker when several sessions share the pool (issue 22): one
 * lane per session, served round-robin, FIFO within a lane. While any other lane is open or has work,
 * a lane runs at most `maxRunning` conversions at once (ceil(workers / 2): the rest of the workers
 * stay free for the others) and keeps at most `maxQueued` waiting (more are refused at once). A lane
 * alone (stdio, one HTTP client, direct use of the fetcher) is not limited: every worker, any queue.
 * Pure bookkeeping: no workers, no timers.
 */

export interface FairLane {
  /** Conversions waiting for a worker, oldest first. */
  readonly queue: readonly unknown[];
  /** Conversions running on a worker now. */
  readonly running: number;
  /** A session's lane counts as a contender while it is open, even when idle. */
  readonly open: boolean;
}

export interface FairQueue<T> {
  /** A lane for one session; `close` it when the session ends. */
  openLane(): FairLane;
  /** The session ended: the lane stops counting as a contender once its work is done. */
  closeLane(lane: FairLane): void;
  /** A lane for callers that are no session (direct `fetchPage`): a contender only while it has work. */
  readonly sharedLane: FairLane;
  /** Whether another lane competes with `lane` now (open, or with work queued or running). */
  contended(lane: FairLane): boolean;
  /** Queues `task` on `lane`; `false` (not queued) when the lane, contended, already has `maxQueued` waiting. */
  push(lane: FairLane, task: T): boolean;
  /** Takes `task` out of its lane's queue; `false` when it was not waiting. */
  remove(lane: FairLane, task: T): boolean;
  /** The next task to run (and counts it running on its lane), or `undefined` when none may run now. */
  next(): { lane: FairLane; task: T } | undefined;
  /** A running task of `lane` ended (finished, failed, stopped). */
  finished(lane: FairLane): void;
  /** Empties every queue (shutdown) and returns what was waiting. */
  drain(): T[];
}

export interface FairQueueOptions {
  /** Running conversions per lane at most while contended. */
  maxRunning: number;
  /** Waiting conversions per lane at most while contended. */
  maxQueued: number;
}

interface Lane<T> extends FairLane {
  queue: T[];
  running: number;
  open: boolean;
}

export function createFairQueue<T>({ maxRunning, maxQueued }: FairQueueOptions): FairQueue<T> {
  /** Lanes that are open or have work: the contenders. */
  const live = new Set<Lane<T>>();
  /** Lanes with waiting tasks, in the order they are served (the one served last goes to the back). */
  const ring: Lane<T>[] = [];
  const sharedLane: Lane<T> = { queue: [], running: 0, open: false };

  function busy(lane: Lane<T>): boolean {
    return lane.open || lane.queue.length > 0 || lane.running > 0;
  }

  function forgetIfIdle(lane: Lane<T>): void {
    if (!busy(lane)) live.delete(lane);
  }

  function contended(lane: FairLane): boolean {
    for (const other of live) if (other !== lane && busy(other)) return true;
    return false;
  }

  return {
    sharedLane,
    contended,
    openLane() {
      const lane: Lane<T> = { queue: [], running: 0, open: true };
      live.add(lane);
      return lane;
    },
    closeLane(fair) {
      const lane = fair as Lane<T>;
      lane.open = false;
      forgetIfIdle(lane);
    },
    push(fair, task) {
      const lane = fair as Lane<T>;
      if (lane.queue.length >= maxQueued && contended(lane)) return false;
      lane.queue.push(task);
      live.add(lane);
      if (!ring.includes(lane)) ring.push(lane);
      return true;
    },
    remove(fair, task) {
      const lane = fair as Lane<T>;
      const at = lane.queue.indexOf(task);
      if (at < 0) return false;
      lane.queue.splice(at, 1);
      if (lane.queue.length === 0) ring.splice(ring.indexOf(lane), 1);
      forgetIfIdle(lane);
      return true;
    },
    next() {
      const at = ring.findIndex((lane) => lane.running < maxRunning || !contended(lane));
      if (at < 0) return undefined;
      const lane = ring[at] as Lane<T>;
      const task = lane.queue.shift() as T;
      lane.running++;
      ring.splice(at, 1);
      if (lane.queue.length > 0) ring.push(lane);
      return { lane, task };
    },
    finished(fair) {
      const lane = fair as Lane<T>;
      lane.running = Math.max(0, lane.running - 1);
      forgetIfIdle(lane);
    },
    drain() {
      const waiting = ring.flatMap((lane) => lane.queue.splice(0));
      for (const lane of ring.splice(0)) forgetIfIdle(lane);
      return waiting;
    },
  };
}
