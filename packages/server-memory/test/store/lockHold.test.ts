/**
 * The lock kept across a burst of writes (`exclusive.ts`): taken once for writes that come one after
 * another, released when none has come for `lingerMs` or once held `maxHoldMs`, on `exit` too, and
 * never in the way of another process for longer: it still gets the lock, and each sees the other's writes.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '@mcpkit/protocol-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openFileStore } from '../../src/server.js';
import { Exclusive } from '../../src/store/exclusive.js';
import { FileLock, processStart } from '../../src/store/lock.js';
import { referenceLoad, tempDir, unrelatedProcess, writeLock } from '../helpers.js';
import { drivenClock } from './drivenClock.js';

const entity = (name: string) => ({ name, entityType: 'person', observations: ['o'] });

/** Another process's view of the lock: a `FileLock` of its own on the same file (judged as held while young). */
const otherProcess = (path: string) => new FileLock(path, { staleMs: 600_000, timeoutMs: 1000 });

describe('Exclusive: one lock for a burst of sections', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps the lock between sections for lingerMs, then releases it without another section', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    const exclusive = new Exclusive(path, { staleMs: 600_000, timeoutMs: 1000, logger: silentLogger, lingerMs: 10 });
    const other = otherProcess(path);
    try {
      await exclusive.run(() => {});
      expect(existsSync(path)).toBe(true);
      await vi.advanceTimersByTimeAsync(9);
      expect(other.tryAcquire()).toBe(false); // still ours: the next section would not take it again
      await exclusive.run(() => {});
      await vi.advanceTimersByTimeAsync(9);
      expect(other.tryAcquire()).toBe(false); // a section pushes the release back
      await vi.advanceTimersByTimeAsync(2);
      expect(existsSync(path)).toBe(false); // idle for lingerMs: released by the timer
      expect(other.tryAcquire()).toBe(true);
      other.release();
    } finally {
      exclusive.dispose();
      other.dispose();
    }
  });

  it('releases maxHoldMs after the lock was taken however busy, and another process waiting then gets it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    const exclusive = new Exclusive(path, { staleMs: 600_000, timeoutMs: 1000, logger: silentLogger, lingerMs: 10, maxHoldMs: 50 });
    const other = otherProcess(path);
    try {
      for (let t = 0; t < 50; t += 5) {
        await exclusive.run(() => {}); // a section every 5 ms: never idle for lingerMs
        expect(other.tryAcquire()).toBe(false);
        await vi.advanceTimersByTimeAsync(5);
      }
      expect(other.tryAcquire()).toBe(true); // 50 ms after it was taken: released, another process gets its turn
      let ran = false;
      const next = exclusive.run(() => {
        ran = true;
      });
      await vi.advanceTimersByTimeAsync(100);
      expect(ran).toBe(false); // waits for the other process, as any writer would
      other.release();
      await vi.advanceTimersByTimeAsync(100);
      await next;
      expect(ran).toBe(true);
      // A section that itself runs past maxHoldMs lets the lock go as it ends.
      await exclusive.run(() => {
        vi.advanceTimersByTime(60);
      });
      expect(existsSync(path)).toBe(false);
    } finally {
      exclusive.dispose();
      other.dispose();
    }
  });

  it('never keeps the lock for more than a quarter of staleMs (nobody takes over a held lock as stale)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    const exclusive = new Exclusive(path, { staleMs: 40, timeoutMs: 1000, logger: silentLogger, lingerMs: 1000, maxHoldMs: 1000 });
    try {
      await exclusive.run(() => {});
      await vi.advanceTimersByTimeAsync(9);
      expect(existsSync(path)).toBe(true);
      await vi.advanceTimersByTimeAsync(2);
      expect(existsSync(path)).toBe(false);
    } finally {
      exclusive.dispose();
    }
  });

  it('lingerMs 0: released after every section', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    const exclusive = new Exclusive(path, { staleMs: 600_000, timeoutMs: 1000, logger: silentLogger, lingerMs: 0 });
    try {
      await exclusive.run(() => expect(existsSync(path)).toBe(true));
      expect(existsSync(path)).toBe(false);
    } finally {
      exclusive.dispose();
    }
  });

  it('a section that throws keeps the lock for the next one, and it is still released when idle', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    const exclusive = new Exclusive(path, { staleMs: 600_000, timeoutMs: 1000, logger: silentLogger, lingerMs: 5 });
    try {
      await expect(
        exclusive.run(() => {
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await exclusive.run(() => 42)).toBe(42);
      await vi.waitFor(() => expect(existsSync(path)).toBe(false));
    } finally {
      exclusive.dispose();
    }
  });
});

describe('the file store with the lock kept across writes', () => {
  it('releases the lock by itself after a write: another store (process) then writes, and each sees the other’s writes', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    const a = await openFileStore({ path, compactDelayMs: 60_000 });
    const b = await openFileStore({ path, compactDelayMs: 60_000 });
    try {
      await a.createEntities([entity('A1')]);
      await vi.waitFor(() => expect(existsSync(`${path}.lock`)).toBe(false)); // idle: released without a close
      await b.createEntities([entity('B1')]);
      await a.createEntities([entity('A2')]); // waits for b's hold, then appends after b's record
      await b.createEntities([entity('B2')]);
      const names = ['A1', 'B1', 'A2', 'B2'];
      expect((await a.readGraph()).entities.map((e) => e.name)).toEqual(names);
      expect((await b.readGraph()).entities.map((e) => e.name)).toEqual(names);
    } finally {
      await a.close();
      await b.close();
    }
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(referenceLoad(readFileSync(path, 'utf8')).entities).toMatchObject(['A1', 'B1', 'A2', 'B2'].map((name) => ({ name })));
  });

  it('bursts from two stores interleaved on one file lose nothing and keep each store’s order', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    const stores = [await openFileStore({ path, compactDelayMs: 60_000 }), await openFileStore({ path, compactDelayMs: 60_000 })];
    try {
      await Promise.all(
        stores.map(async (s, k) => {
          for (let i = 0; i < 40; i++) await s.createEntities([entity(`s${k}-${i}`)]);
        }),
      );
      for (const s of stores) {
        const names = (await s.readGraph()).entities.map((e) => e.name);
        expect(names).toHaveLength(80);
        for (const k of [0, 1]) {
          const own = names.filter((n) => n.startsWith(`s${k}-`));
          expect(own).toEqual(Array.from({ length: 40 }, (_, i) => `s${k}-${i}`));
        }
      }
    } finally {
      for (const s of stores) await s.close();
    }
  });

  it('a write after another store appended outside a hold (a journal it has not read) sees that append first', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    const a = await openFileStore({ path, compactDelayMs: 60_000, lockLingerMs: 0 });
    const b = await openFileStore({ path, compactDelayMs: 60_000, lockLingerMs: 0 });
    try {
      await a.createEntities([entity('Alice')]);
      await b.addObservations([{ entityName: 'Alice', contents: ['from b'] }]);
      // a has not read b's record: its write must see it (not "unknown entity", not a stale copy of Alice).
      const [added] = await a.addObservations([{ entityName: 'Alice', contents: ['from b', 'from a'] }]);
      expect(added!.addedObservations).toEqual(['from a']);
    } finally {
      await a.close();
      await b.close();
    }
    expect(referenceLoad(readFileSync(path, 'utf8')).entities).toMatchObject([{ name: 'Alice', observations: ['o', 'from b', 'from a'] }]);
  });

  it.runIf(process.platform !== 'win32')('a process that exits holding the lock between writes leaves no lock file', () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    const script = join(dir.path, 'exit.mts');
    const store = new URL('../../src/store/fileStore.ts', import.meta.url).pathname;
    writeFileSync(
      script,
      `import { existsSync } from 'node:fs';
       import { openFileStore } from ${JSON.stringify(store)};
       const store = await openFileStore({ path: ${JSON.stringify(path)}, compactDelayMs: 60_000, lockLingerMs: 60_000 });
       await store.createEntities([{ name: 'Exit', entityType: 't', observations: [] }]);
       process.stdout.write(existsSync(${JSON.stringify(`${path}.lock`)}) ? 'held' : 'free');
       process.exit(0); // no close: the lock is still kept for the next write`,
    );
    const child = spawnSync(process.execPath, ['--conditions=@mcpkit/source', '--import', 'tsx', script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    expect(child.stdout).toBe('held');
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(referenceLoad(readFileSync(path, 'utf8')).entities).toMatchObject([{ name: 'Exit' }]);
  });
});

describe('Exclusive: a lock kept across a pause is checked before it is used again', () => {
  const kept = (path: string, timeoutMs = 300, clock = drivenClock()) =>
    new Exclusive(path, { staleMs: 600_000, timeoutMs, logger: silentLogger, lingerMs: 60_000, maxHoldMs: 60_000, clock });

  for (const [label, replace] of [
    [
      'replaced by another process’s lock (a new file)',
      (path: string, pid: number, id?: string) => {
        unlinkSync(path);
        writeLock(path, pid, { id });
      },
    ],
    ['overwritten in place by another process’s record', (path: string, pid: number, id?: string) => writeLock(path, pid, { id })],
  ] as const) {
    it.runIf(process.platform === 'linux')(
      `${label}: the next section waits for that process, and nothing of ours removes its lock`,
      async () => {
        using dir = tempDir();
        using owner = unrelatedProcess();
        const path = join(dir.path, 'm.lock');
        const clock = drivenClock();
        const exclusive = kept(path, 300, clock);
        try {
          await exclusive.run(() => {});
          replace(path, owner.pid, processStart(owner.pid)?.id);
          let ended = false;
          const next = exclusive
            .run(() => 'ran')
            .finally(() => {
              ended = true;
            });
          next.catch(() => {});
          await clock.advance(300);
          expect(ended).toBe(false); // waits for that process, up to the time-out
          await clock.advance(50); // to the try after the time-out (the back-off is under 50 ms)
          await expect(next).rejects.toThrow(/locked by another mcp-server-memory/);
          exclusive.dispose();
          expect(readFileSync(path, 'utf8')).toContain(`"pid":${owner.pid}`);
        } finally {
          exclusive.dispose();
        }
      },
    );
  }

  it('touched but still naming this process (its mode changed): still ours, used at once', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    const exclusive = kept(path, 60_000);
    try {
      await exclusive.run(() => {});
      const before = statSync(path, { bigint: true }).ctimeNs;
      chmodSync(path, 0o644);
      expect(statSync(path, { bigint: true }).ctimeNs).not.toBe(before);
      expect(await exclusive.run(() => 'ran')).toBe('ran');
      exclusive.dispose();
      expect(existsSync(path)).toBe(false);
    } finally {
      exclusive.dispose();
    }
  });
});
