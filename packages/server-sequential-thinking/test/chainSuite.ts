/** The contract of a `ChainStore`, run against the in-process store and the PostgreSQL one. */
import { describe, expect, it } from 'vitest';
import { type ChainStore, type HistoryLimits, type ThoughtRecord, UnknownChainError } from '../src/server.js';

export interface ChainStoreOptions extends Partial<HistoryLimits> {
  ttlMs?: number;
  maxChains?: number;
  now: () => number;
}

export type OpenChainStore = (options: ChainStoreOptions) => Promise<ChainStore>;

const thought = (n: number, extra: Partial<ThoughtRecord> = {}): ThoughtRecord => ({
  thought: `thought ${n}`,
  thoughtNumber: n,
  totalThoughts: 10,
  nextThoughtNeeded: true,
  ...extra,
});

/** A clock the test moves by hand. */
export function manualClock(start = 1_000_000) {
  let at = start;
  return {
    now: () => at,
    advance: (ms: number) => {
      at += ms;
    },
  };
}

export function chainStoreSuite(name: string, open: OpenChainStore, enabled = true): void {
  describe.runIf(enabled)(`${name}: thought chains`, () => {
    const limits = { maxHistory: 1000, maxHistoryBytes: 1024 * 1024 };

    it('mints a handle for a new chain and continues it by that handle', async () => {
      const clock = manualClock();
      await using store = disposable(await open({ ...limits, now: clock.now }));
      const first = await store.append('alice', undefined, thought(1));
      expect(first).toEqual({ handle: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/), length: 1, branches: [] });
      for (let n = 2; n <= 10; n++) {
        expect(await store.append('alice', first.handle, thought(n))).toEqual({ handle: first.handle, length: n, branches: [] });
      }
      // Another chain of the same owner starts over and has another handle.
      const other = await store.append('alice', undefined, thought(1));
      expect(other.handle).not.toBe(first.handle);
      expect(other.length).toBe(1);
    });

    it('a handle is bound to its owner: another owner gets the unknown-chain error and adds nothing', async () => {
      const clock = manualClock();
      await using store = disposable(await open({ ...limits, now: clock.now }));
      const { handle } = await store.append('alice', undefined, thought(1));
      await expect(store.append('mallory', handle, thought(2))).rejects.toBeInstanceOf(UnknownChainError);
      await expect(store.append('alice', 'A'.repeat(32), thought(2))).rejects.toBeInstanceOf(UnknownChainError);
      expect((await store.append('alice', handle, thought(2))).length).toBe(2);
    });

    it('a chain unused for the TTL is gone; one used within it lives on', async () => {
      const clock = manualClock();
      await using store = disposable(await open({ ...limits, ttlMs: 60_000, now: clock.now }));
      const kept = await store.append('alice', undefined, thought(1));
      const left = await store.append('alice', undefined, thought(1));
      clock.advance(59_999);
      expect((await store.append('alice', kept.handle, thought(2))).length).toBe(2);
      clock.advance(1);
      await expect(store.append('alice', left.handle, thought(2))).rejects.toBeInstanceOf(UnknownChainError);
      // `kept` was used 1 ms ago: its TTL runs from its last thought.
      clock.advance(59_998);
      expect((await store.append('alice', kept.handle, thought(3))).length).toBe(3);
      // A new chain sweeps the expired ones; the expired handle stays unknown.
      clock.advance(60_000);
      await store.append('bob', undefined, thought(1));
      await expect(store.append('alice', kept.handle, thought(4))).rejects.toBeInstanceOf(UnknownChainError);
    });

    it('keeps at most maxChains: the least recently used goes', async () => {
      const clock = manualClock();
      await using store = disposable(await open({ ...limits, maxChains: 2, now: clock.now }));
      const a = await store.append('alice', undefined, thought(1));
      clock.advance(1);
      const b = await store.append('alice', undefined, thought(1));
      clock.advance(1);
      await store.append('alice', a.handle, thought(2)); // a is now the most recently used
      clock.advance(1);
      await store.append('alice', undefined, thought(1)); // b goes
      await expect(store.append('alice', b.handle, thought(2))).rejects.toBeInstanceOf(UnknownChainError);
      expect((await store.append('alice', a.handle, thought(3))).length).toBe(3);
    });

    it("each chain keeps the history's bounds: count, bytes and branches as the session history does", async () => {
      const clock = manualClock();
      await using store = disposable(await open({ maxHistory: 3, maxHistoryBytes: 40, now: clock.now }));
      const { handle } = await store.append('alice', undefined, thought(1, { branchFromThought: 1, branchId: 'a' }));
      expect(await store.append('alice', handle, thought(2, { branchFromThought: 1, branchId: 'b' }))).toMatchObject({
        length: 2,
        branches: ['a', 'b'],
      });
      await store.append('alice', handle, thought(3, { branchFromThought: 1, branchId: 'a' }));
      // A fourth thought drops the first (count 3): branch a keeps its later thought, so it stays first.
      expect(await store.append('alice', handle, thought(4))).toMatchObject({ length: 3, branches: ['a', 'b'] });
      // 30 bytes drop everything before it but one (10 + 30 ≤ 40): b's only thought goes, and b with it.
      expect(await store.append('alice', handle, thought(5, { thought: 'x'.repeat(30) }))).toMatchObject({
        length: 2,
        branches: [],
      });
    });
  });
}

/** `store` closed on dispose. */
function disposable(store: ChainStore): ChainStore & AsyncDisposable {
  return Object.assign(store, { [Symbol.asyncDispose]: () => store.close() });
}
