/** The file store while another process holds its lock: a reused pid, `openWhenLocked: 'defer'`, the lock time-out. */
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolError } from '@mcpkit/protocol-core';
import { trackSettled } from '@mcpkit/test-utils/settled';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/server.js';
import { processStart } from '../../src/store/lock.js';
import { referenceLoad, referenceSave, tempDir, unrelatedProcess, writeLock } from '../helpers.js';
import { drivenClock, settled } from './drivenClock.js';
import { capture, sample } from './fileFixture.js';

const linux = process.platform === 'linux';
const posix = process.platform !== 'win32';
const elapsed = async <T>(p: Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const value = await p;
  return [value, performance.now() - t0];
};

describe('a lock held by another process', () => {
  it.runIf(linux)('a lock naming a live process that did not write it (pid reused) holds nothing up', async () => {
    using dir = tempDir();
    using other = unrelatedProcess();
    const path = join(dir.path, 'memory.jsonl');
    // The server that wrote it was killed; `other` got its pid. This used to wait for `other` to exit, 60 s per call.
    writeLock(`${path}.lock`, other.pid, { id: `${processStart(other.pid)!.id!.split(':')[0]}:1` });
    const [store, openMs] = await elapsed(openFileStore({ path, lockTimeoutMs: 60_000 }));
    const [, writeMs] = await elapsed(store.createEntities(sample.entities));
    await store.close();
    // Bounded by the contract, the 60 s lock timeout it must not sit out: a factor of it, not a wall-clock figure.
    expect(openMs + writeMs).toBeLessThan(60_000 / 10);
    expect(referenceLoad(readFileSync(path, 'utf8'))).toEqual({ entities: sample.entities, relations: [] });
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it.runIf(posix)('openWhenLocked defer: opens at once while the owner holds the lock; the first call waits for it', async () => {
    using dir = tempDir();
    using owner = unrelatedProcess();
    const path = join(dir.path, 'memory.jsonl');
    writeFileSync(path, referenceSave({ entities: [sample.entities[0]!], relations: [] }));
    writeLock(`${path}.lock`, owner.pid, { id: processStart(owner.pid)?.id });
    const { lines, logger } = capture();
    // The lock's waits run on a clock that moves only when this test moves it: an open that waited for the lock would never resolve.
    const clock = drivenClock();
    const store = await openFileStore({ path, logger, openWhenLocked: 'defer', lockTimeoutMs: 10_000, lockClock: clock });
    expect(clock.pending).toBe(0); // nothing waits for the lock
    expect(lines.join('')).toContain(`memory.jsonl.lock is held by process ${owner.pid} since`);
    const write = store.createEntities([sample.entities[1]!]);
    const done = trackSettled(write);
    // The call waits for the lock (its back-off is on the clock); it says so once it has waited 1 s, not before.
    await expect.poll(() => clock.pending).toBeGreaterThan(0);
    const notice = `waiting for ${path}.lock, held by process ${owner.pid}`;
    await clock.advance(999);
    expect(lines.join('')).not.toContain(notice);
    await clock.advance(1);
    expect(lines.join('')).toContain(notice);
    expect(done()).toBe(false);
    unlinkSync(`${path}.lock`); // the owner finishes
    await clock.next(); // the call's next try
    await write;
    expect((await store.readGraph()).entities).toEqual(sample.entities);
    await store.close();
    expect(referenceLoad(readFileSync(path, 'utf8')).entities).toEqual(sample.entities);
  });

  it.runIf(posix)(
    'a call that cannot get the lock in time fails with a clear error naming the holder; later calls still work',
    async () => {
      using dir = tempDir();
      using owner = unrelatedProcess();
      const path = join(dir.path, 'memory.jsonl');
      writeLock(`${path}.lock`, owner.pid, { id: processStart(owner.pid)?.id });
      const clock = drivenClock();
      const store = await openFileStore({ path, openWhenLocked: 'defer', lockTimeoutMs: 2000, lockClock: clock });
      // Calls queued behind the stuck lock give up in time too, not one timeout after another: on the driven clock
      // none has ended at the 2 s timeout, all three have by its next try (the back-off is under 50 ms).
      const calls = Promise.allSettled([store.readGraph(), store.createEntities(sample.entities), store.searchNodes('a')]);
      await clock.advance(2000);
      expect(await settled(calls)).toBe(false);
      await clock.advance(50);
      expect(await settled(calls)).toBe(true);
      for (const r of await calls) {
        expect(r.status).toBe('rejected');
        const reason = (r as PromiseRejectedResult).reason;
        expect(reason).toBeInstanceOf(ToolError);
        expect(reason.message).toMatch(
          new RegExp(
            `^The memory file is locked by another mcp-server-memory \\(process ${owner.pid} since [^)]+\\) that did not release it within 2 s; nothing was read or changed`,
          ),
        );
      }
      unlinkSync(`${path}.lock`);
      await store.createEntities(sample.entities);
      expect((await store.readGraph()).entities).toEqual(sample.entities);
      await store.close();
    },
  );
});
