// The drain's bookkeeping (`src/runner/drain.ts`), with the timers injected: nothing waits on the clock.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { carriesRequest, createDrain, createRequestCounter, type Timers } from '../src/runner/drain.js';

/** Timers the test fires by hand. */
function manualTimers() {
  const pending = new Map<number, () => void>();
  let next = 0;
  const timers: Timers = {
    setTimeout: (callback) => {
      pending.set(++next, callback);
      return next;
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  return {
    timers,
    fire: () => {
      for (const f of [...pending.values()]) f();
    },
    count: () => pending.size,
  };
}

const request = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } });
const answer = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: {} });

describe('createDrain', () => {
  it('settles at once with nothing in flight, else when the last call ends (and cancels the grace timer)', async () => {
    const { timers, count } = manualTimers();
    expect(await createDrain(timers).settle(1000)).toBe(true);
    const drain = createDrain(timers);
    const a = drain.enter();
    const b = drain.enter();
    const settled = drain.settle(1000);
    expect(drain.draining).toBe(true);
    a();
    a(); // ending twice counts once
    expect(drain.inFlight).toBe(1);
    b();
    expect(await settled).toBe(true);
    expect(count()).toBe(0);
  });

  it('gives up when the grace runs out', async () => {
    const { timers, fire } = manualTimers();
    const drain = createDrain(timers);
    drain.enter();
    const settled = drain.settle(1000);
    fire();
    expect(await settled).toBe(false);
    expect(drain.inFlight).toBe(1);
  });
});

describe('createRequestCounter', () => {
  it('counts a request until its answer, refuses new requests once draining, lets answers and notifications through', () => {
    const drain = createDrain(manualTimers().timers);
    const counter = createRequestCounter(drain);
    expect(counter.received(request(1))).toBe(true);
    expect(drain.inFlight).toBe(1);
    void drain.settle(1000);
    expect(counter.received(request(2))).toBe(false);
    expect(counter.received({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })).toBe(true);
    expect(counter.received(answer(7))).toBe(true); // the client's answer to a server request
    counter.sent({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
    expect(drain.inFlight).toBe(1);
    counter.sent(answer(1));
    expect(drain.inFlight).toBe(0);
  });

  it('ends what was in flight when the connection closes', () => {
    const drain = createDrain(manualTimers().timers);
    const counter = createRequestCounter(drain);
    counter.received(request(1));
    counter.received(request(2));
    counter.closed();
    expect(drain.inFlight).toBe(0);
  });
});

describe('carriesRequest', () => {
  it('tells new work from answers and notifications', () => {
    expect(carriesRequest(request(1))).toBe(true);
    expect(carriesRequest([answer(1), request(2)])).toBe(true);
    expect(carriesRequest(answer(1))).toBe(false);
    expect(carriesRequest({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(false);
  });
});
