/** The order in which sessions' conversions get a worker (src/content/fairQueue.ts), without workers. */
import { describe, expect, it } from 'vitest';
import { createFairQueue, type FairLane, type FairQueue } from '../src/content/fairQueue.js';

/** Takes what may run now, at most `n`: the tasks in the order they would get a worker. */
function take(queue: FairQueue<string>, n = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  while (out.length < n) {
    const next = queue.next();
    if (!next) break;
    out.push(next.task);
  }
  return out;
}

function push(queue: FairQueue<string>, lane: FairLane, ...tasks: string[]): void {
  for (const t of tasks) expect(queue.push(lane, t)).toBe(true);
}

describe('one lane alone (stdio, a single HTTP client)', () => {
  it('is not limited: every task may run, any number may wait', () => {
    const queue = createFairQueue<string>({ maxRunning: 1, maxQueued: 2 });
    const a = queue.openLane();
    push(queue, a, 'a1', 'a2', 'a3', 'a4');
    expect(queue.contended(a)).toBe(false);
    expect(take(queue)).toEqual(['a1', 'a2', 'a3', 'a4']);
  });
});

describe('lanes that share the workers', () => {
  it('are served round-robin, in order within a lane', () => {
    const queue = createFairQueue<string>({ maxRunning: 10, maxQueued: 10 });
    const [a, b, c] = [queue.openLane(), queue.openLane(), queue.openLane()];
    push(queue, a, 'a1', 'a2', 'a3');
    push(queue, b, 'b1');
    push(queue, c, 'c1', 'c2');
    expect(take(queue)).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
  });

  it('run at most maxRunning each while another lane is open, even an idle one', () => {
    const queue = createFairQueue<string>({ maxRunning: 1, maxQueued: 10 });
    const a = queue.openLane();
    queue.openLane(); // idle, but open: a worker is kept for it
    push(queue, a, 'a1', 'a2');
    expect(take(queue)).toEqual(['a1']);
    expect(queue.next()).toBeUndefined();
  });

  it('a finished task frees its lane for the next one', () => {
    const queue = createFairQueue<string>({ maxRunning: 1, maxQueued: 10 });
    const [a, b] = [queue.openLane(), queue.openLane()];
    push(queue, a, 'a1', 'a2');
    push(queue, b, 'b1', 'b2');
    expect(take(queue)).toEqual(['a1', 'b1']);
    queue.finished(b);
    expect(take(queue)).toEqual(['b2']);
    queue.finished(a);
    expect(take(queue)).toEqual(['a2']);
  });

  it('closing the other lane lifts the limit once its work is done', () => {
    const queue = createFairQueue<string>({ maxRunning: 1, maxQueued: 10 });
    const [a, b] = [queue.openLane(), queue.openLane()];
    push(queue, b, 'b1');
    expect(take(queue)).toEqual(['b1']);
    push(queue, a, 'a1', 'a2');
    queue.closeLane(b);
    // b's task still runs: b still competes.
    expect(take(queue)).toEqual(['a1']);
    queue.finished(b);
    expect(take(queue)).toEqual(['a2']);
  });

  it('refuse more than maxQueued waiting tasks of one lane, and only while contended', () => {
    const queue = createFairQueue<string>({ maxRunning: 1, maxQueued: 2 });
    const a = queue.openLane();
    push(queue, a, 'a1', 'a2', 'a3');
    const b = queue.openLane();
    expect(queue.push(a, 'a4')).toBe(false);
    expect(queue.push(b, 'b1')).toBe(true);
    expect(take(queue)).toEqual(['a1', 'b1']);
    expect(queue.push(a, 'a4')).toBe(false); // a2, a3 still wait
  });

  it('the shared lane (no session) competes only while it has work', () => {
    const queue = createFairQueue<string>({ maxRunning: 1, maxQueued: 10 });
    const a = queue.openLane();
    expect(queue.contended(a)).toBe(false);
    push(queue, queue.sharedLane, 's1');
    expect(queue.contended(a)).toBe(true);
    expect(take(queue)).toEqual(['s1']);
    queue.finished(queue.sharedLane);
    expect(queue.contended(a)).toBe(false);
  });

  it('remove takes a waiting task out; drain empties every lane', () => {
    const queue = createFairQueue<string>({ maxRunning: 1, maxQueued: 10 });
    const [a, b] = [queue.openLane(), queue.openLane()];
    push(queue, a, 'a1', 'a2', 'a3');
    push(queue, b, 'b1');
    expect(queue.remove(a, 'a2')).toBe(true);
    expect(queue.remove(a, 'a2')).toBe(false);
    expect(take(queue)).toEqual(['a1', 'b1']);
    expect(queue.drain()).toEqual(['a3']);
    expect(take(queue)).toEqual([]);
  });
});
