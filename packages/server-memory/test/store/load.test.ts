/**
 * The load: in the background (`load: 'background'`, what the CLI does), with progress for the
 * calls that wait for it, and a wait that one call can stop while the load goes on for the others.
 * A lock held by this test process (a genuine owner: same pid, same identity, not stale) keeps the
 * load from finishing for as long as a test needs: the snapshot is read without the lock, the journal under it.
 * The wait for that lock runs on a clock the test drives (`drivenClock`): nothing here sits out its 1 s notice.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@mcpkit/protocol-core';
import { connectInMemory } from '@mcpkit/protocol-core/testing';
import { describe, expect, it, vi } from 'vitest';
import { createMemoryServer, ForeignFileError, type GraphStore, type LoadProgress, openFileStore } from '../../src/server.js';
import { FileLock } from '../../src/store/lock.js';
import { referenceLoad, referenceSave, tempDir } from '../helpers.js';
import { type DrivenClock, drivenClock, settled } from './drivenClock.js';

const entity = (i: number) => ({ name: `E${i}`, entityType: 'thing', observations: [`observation ${i} about something`, 'a', 'b'] });

/** A memory file of `n` entities (and a relation each) in a fresh folder, with a lock this process can hold. */
function bigFile(n: number) {
  const dir = tempDir();
  const path = join(dir.path, 'memory.jsonl');
  const entities = Array.from({ length: n }, (_, i) => entity(i));
  const relations = entities.map((_, i) => ({ from: `E${i}`, to: `E${(i + 1) % n}`, relationType: 'next' }));
  writeFileSync(path, referenceSave({ entities, relations }));
  const lock = new FileLock(`${path}.lock`, { staleMs: 60_000, timeoutMs: 1000 });
  const dispose = () => {
    lock.release();
    dir[Symbol.dispose]();
  };
  return { dir: dir.path, path, lock, size: statSync(path).size, [Symbol.dispose]: dispose };
}

/** A store loading `path` in the background, what it logs, and the clock its waits for the lock run on. */
function opened(path: string) {
  const lines: string[] = [];
  const logger = createLogger({ name: 't', level: 'debug', write: (l) => lines.push(l) });
  const clock = drivenClock();
  const store = openFileStore({
    path,
    load: 'background',
    logger,
    lockStaleMs: 60_000,
    lockTimeoutMs: 20_000,
    compactDelayMs: 60_000,
    lockClock: clock,
  });
  return { lines, store, clock };
}
const open = async (path: string) => await opened(path).store;
/**
 * Resolves once the store's load waits for the lock this test holds (a timer of that wait is set on `clock`), with
 * the clock moved past its 1 s notice, which must then be in the log: from then on nothing that needs the load can
 * settle until the test releases the lock.
 */
async function waitingForLock(lines: string[], clock: DrivenClock, path: string) {
  await expect.poll(() => clock.pending).toBeGreaterThan(0);
  await clock.advance(1000);
  expect(lines.join('')).toContain(`waiting for ${path}.lock, held by process ${process.pid}`);
}
/** Releases the lock the test holds and moves `clock` to the waiting load's next try, which then gets it. */
function release(lock: FileLock, clock: DrivenClock) {
  lock.release();
  return clock.next();
}

describe('load in the background', () => {
  it('opens before the graph is loaded; calls wait for it, hear its progress, then see every record', async () => {
    using f = bigFile(5000);
    expect(f.lock.tryAcquire()).toBe(true);
    const { lines, store: opening, clock } = opened(f.path);
    const store = await opening;
    try {
      const seen: LoadProgress[] = [];
      const ready = store.ready!({ onProgress: (p) => seen.push(p) });
      const read = store.readGraph({ limit: 1 });
      expect(await settled(ready)).toBe(false);
      expect(await settled(read)).toBe(false);
      // The snapshot is read (without the lock); the journal waits for it. Polled: on a loaded machine the read
      // of the snapshot can take longer than the 200 ms above.
      await expect.poll(() => seen.at(-1)).toEqual({ loaded: f.size, total: f.size });
      await waitingForLock(lines, clock, f.path);
      expect(await settled(ready)).toBe(false);
      expect(await settled(read)).toBe(false);
      for (const [i, p] of seen.entries()) if (i > 0) expect(p.loaded).toBeGreaterThan(seen[i - 1]!.loaded);
      await release(f.lock, clock);
      await ready;
      expect((await read).totalEntities).toBe(5000);
      expect((await read).totalRelations).toBe(5000);
      await expect(store.ready!()).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('a wait stopped by its signal ends that wait only; the load goes on for the others', async () => {
    using f = bigFile(100);
    expect(f.lock.tryAcquire()).toBe(true);
    const { lines, store: opening, clock } = opened(f.path);
    const store = await opening;
    try {
      const stop = new AbortController();
      const stopped = store.ready!({ signal: stop.signal, onProgress: () => {} });
      const other = store.ready!();
      stop.abort(new Error('client cancelled'));
      await expect(stopped).rejects.toThrow('client cancelled');
      await expect(store.ready!({ signal: stop.signal })).rejects.toThrow('client cancelled');
      await waitingForLock(lines, clock, f.path);
      expect(await settled(other)).toBe(false);
      await release(f.lock, clock);
      await other;
      expect((await store.readGraph({ limit: 1 })).totalEntities).toBe(100);
    } finally {
      await store.close();
    }
  });

  it('writes made while the graph loads are applied after it, in order', async () => {
    using f = bigFile(100);
    expect(f.lock.tryAcquire()).toBe(true);
    const { lines, store: opening, clock } = opened(f.path);
    const store = await opening;
    const created = store.createEntities([{ name: 'New', entityType: 't', observations: [] }]);
    const added = store.addObservations([{ entityName: 'New', contents: ['x'] }]);
    await waitingForLock(lines, clock, f.path);
    expect(await settled(created)).toBe(false);
    await release(f.lock, clock);
    expect(await created).toHaveLength(1);
    expect(await added).toEqual([{ entityName: 'New', addedObservations: ['x'] }]);
    await store.close();
    expect(referenceLoad(readFileSync(f.path, 'utf8')).entities).toHaveLength(101);
  });

  it('one record line at the top is enough to open at once; otherwise the file is read first (a foreign file fails open)', async () => {
    using dir = tempDir();
    const settings = join(dir.path, 'settings.json');
    writeFileSync(settings, '{\n  "editor.fontSize": 14\n}\n');
    await expect(open(settings)).rejects.toBeInstanceOf(ForeignFileError);
    expect(readdirSync(dir.path)).toEqual(['settings.json']);
    // A broken first line does not make a graph foreign: it is set aside, the rest loads.
    const path = join(dir.path, 'memory.jsonl');
    writeFileSync(path, `{"type":"entity","name":"Half\n${referenceSave({ entities: [entity(1)], relations: [] })}`);
    const store = await open(path);
    expect((await store.readGraph()).entities).toEqual([entity(1)]);
    await store.close();
    expect(readFileSync(`${path}.corrupt`, 'utf8')).toBe('{"type":"entity","name":"Half\n');
  });

  it('closing during the load stops it and writes nothing', async () => {
    using f = bigFile(20_000);
    const before = readFileSync(f.path, 'utf8');
    const store = await open(f.path);
    await store.close();
    await expect(store.ready!()).rejects.toThrow('closed');
    expect(readFileSync(f.path, 'utf8')).toBe(before);
    expect(existsSync(`${f.path}.wal`)).toBe(false);
  });
});

describe('through the MCP SDK client', () => {
  /** `store` with a count of the `ready` waits in progress. */
  function counted(store: GraphStore) {
    const count = { waiting: 0 };
    const proxy = new Proxy(store, {
      get(target, key) {
        if (key === 'ready') {
          return (options: Parameters<NonNullable<GraphStore['ready']>>[0]) => {
            count.waiting++;
            return target.ready!(options).finally(() => count.waiting--);
          };
        }
        const value = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { store: proxy, count };
  }

  it('a tool call that waits for the load gets notifications/progress (bytes of the file), then its answer', async () => {
    using f = bigFile(2000);
    expect(f.lock.tryAcquire()).toBe(true);
    const { store: opening, clock } = opened(f.path);
    const store = await opening;
    await using pair = await connectInMemory(createMemoryServer({ store }));
    // Answered while the graph cannot finish loading.
    expect((await pair.client.listTools()).tools).toHaveLength(9);
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const call = pair.client.callTool(
      { name: 'open_nodes', arguments: { names: ['E7'] } },
      {
        onprogress: (p) => progress.push(p),
      },
    );
    await expect.poll(() => progress.at(-1)?.progress).toBe(f.size); // the snapshot is read; the journal waits for the lock
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toEqual({ progress: f.size, total: f.size, message: expect.stringMatching(/^loading the knowledge graph: /) });
    await release(f.lock, clock);
    const res = await call;
    expect(res.structuredContent).toMatchObject({ entities: [entity(7)] });
    await store.close();
  });

  it('notifications/cancelled ends the wait of that call; the load goes on and the next call is answered', async () => {
    using f = bigFile(2000);
    expect(f.lock.tryAcquire()).toBe(true);
    const { store: opening, clock } = opened(f.path);
    const inner = await opening;
    const { store, count } = counted(inner);
    await using pair = await connectInMemory(createMemoryServer({ store }));
    const stop = new AbortController();
    const cancelled = pair.client.callTool(
      { name: 'read_graph', arguments: { limit: 1 } },
      {
        signal: stop.signal,
        onprogress: () => {},
      },
    );
    const other = pair.client.callTool({ name: 'search_nodes', arguments: { query: 'E12' } });
    await expect.poll(() => count.waiting).toBe(2);
    stop.abort();
    await expect(cancelled).rejects.toThrow();
    await expect.poll(() => count.waiting).toBe(1); // the server stopped waiting for the cancelled call
    await release(f.lock, clock);
    expect((await other).structuredContent).toMatchObject({ entities: expect.arrayContaining([entity(12)]) });
    expect(count.waiting).toBe(0);
    await inner.close();
  });

  it('builds the search index in the next idle moment after the load, and not once the store is closed', async () => {
    const logged = () => {
      const lines: string[] = [];
      return {
        lines,
        logger: createLogger({ name: 't', level: 'debug', write: (l) => lines.push(l) }),
        built: () => lines.some((l) => l.includes('built the search index')),
      };
    };
    using f = bigFile(3000);
    const idle = logged();
    const store = await openFileStore({ path: f.path, load: 'background', logger: idle.logger, compactDelayMs: 60_000 });
    await store.ready!();
    expect(idle.built()).toBe(false); // not in the load itself: the first calls get their answers first
    await expect.poll(idle.built, { timeout: 5000 }).toBe(true);
    expect((await store.searchNodes('observation 2345 about')).entities).toEqual([entity(2345)]);
    await store.close();

    // A store closed meanwhile never builds it: its idle timer, driven past its time, finds the store closed.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const busy = logged();
      const other = await openFileStore({ path: f.path, load: 'background', logger: busy.logger, compactDelayMs: 60_000 });
      await other.ready!();
      await other.close();
      vi.runAllTimers();
      expect(busy.built()).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
