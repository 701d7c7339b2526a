import { lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBin, spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it, vi } from 'vitest';
import { openFileStore } from '../src/server.js';
import { FileLock, processStart } from '../src/store/lock.js';
import { referenceLoad, referenceSave, tempDir, unrelatedProcess, writeLock } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

const entity = (name: string) => ({ name, entityType: 'thing', observations: [`about ${name}`, 'a', 'b'] });

/** A graph file above the whole-file-rewrite threshold (256 KiB), so the server journals. */
function bigGraph(n: number): string {
  const entities = Array.from({ length: n }, (_, i) => ({ ...entity(`Big${i}`), observations: [`${'x'.repeat(100)} ${i}`, 'a', 'b'] }));
  return referenceSave({ entities, relations: [] });
}

async function countIn(path: string): Promise<Set<string>> {
  const store = await openFileStore({ path, lockStaleMs: 2000 });
  const names = new Set((await store.readGraph()).entities.map((e) => e.name));
  await store.close();
  return names;
}

describe('mcp-server-memory (built bin over stdio)', () => {
  it('serves the tools, prints the resolved file, and writes the reference format', async () => {
    using dir = tempDir();
    await using proc = await spawnStdio(bin, { args: ['--memory-path', 'sub/memory.jsonl'], cwd: dir.path });
    expect(proc.client.getServerVersion()).toMatchObject({ name: 'memory-server' });
    expect((await proc.client.listTools()).tools.map((t) => t.name)).toEqual([
      'create_entities',
      'create_relations',
      'add_observations',
      'delete_entities',
      'delete_observations',
      'delete_relations',
      'read_graph',
      'search_nodes',
      'open_nodes',
    ]);
    const res = await proc.client.callTool({ name: 'create_entities', arguments: { entities: [entity('Alice')] } });
    expect(res.structuredContent).toEqual({ entities: [entity('Alice')] });
    const path = join(dir.path, 'sub', 'memory.jsonl');
    expect(readFileSync(path, 'utf8')).toBe(referenceSave({ entities: [entity('Alice')], relations: [] }));
    expect(proc.stderr()).toContain(`knowledge graph file: ${path} (from --memory-path)`);
  });

  it('refuses a file that is not a memory graph: exit 2, file untouched', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'settings.json');
    writeFileSync(path, '{\n  "a": 1\n}\n');
    const { code, stderr } = await runBin(bin, { env: { MEMORY_FILE_PATH: path } });
    expect(code).toBe(2);
    expect(stderr).toContain(`mcp-server-memory: ${path} is not a knowledge-graph memory file (line 1: `);
    expect(readFileSync(path, 'utf8')).toBe('{\n  "a": 1\n}\n');
  });
});

describe('several processes on one file', () => {
  for (const [label, initial] of [
    ['empty file (whole-file rewrites)', ''],
    ['large file (journal)', bigGraph(2500)],
  ] as const) {
    it(`4 processes × 250 concurrent create_entities → exactly 1000 new entities (${label})`, async () => {
      using dir = tempDir();
      const path = join(dir.path, 'memory.jsonl');
      writeFileSync(path, initial);
      const procs = await Promise.all(
        Array.from({ length: 4 }, () => spawnStdio(bin, { args: ['--memory-path', path, '--log-level', 'warn'] })),
      );
      try {
        const results = await Promise.all(
          procs.flatMap((proc, p) =>
            Array.from({ length: 250 }, (_, i) =>
              proc.client.callTool({ name: 'create_entities', arguments: { entities: [entity(`P${p}-${i}`)] } }),
            ),
          ),
        );
        expect(results.filter((r) => r.isError)).toEqual([]);
        // Every process sees all writes, including the others'.
        for (const proc of procs) {
          const g = (await proc.client.callTool({ name: 'search_nodes', arguments: { query: 'about P', namesOnly: true } }))
            .structuredContent as {
            total: { entities: number };
          };
          expect(g.total.entities).toBe(1000);
        }
      } finally {
        for (const proc of procs) await proc[Symbol.asyncDispose]();
      }
      const names = await countIn(path);
      expect([...names].filter((n) => n.startsWith('P'))).toHaveLength(1000);
      // After the processes exit, the file alone (what the reference reads) holds everything.
      expect(referenceLoad(readFileSync(path, 'utf8')).entities).toHaveLength(1000 + (initial ? 2500 : 0));
    }, 120_000);
  }
});

describe('SIGKILL in the middle of writes', () => {
  for (const [label, initial] of [
    ['small graph', ''],
    ['journal', bigGraph(2500)],
  ] as const) {
    it(`keeps every acknowledged write and a loadable file (${label})`, async () => {
      using dir = tempDir();
      const path = join(dir.path, 'memory.jsonl');
      writeFileSync(path, initial);
      const acknowledged: string[] = [];
      for (let round = 0; round < 4; round++) {
        const proc = await spawnStdio(bin, { args: ['--memory-path', path, '--log-level', 'error'] });
        let stop = false;
        const writer = async (w: number) => {
          for (let i = 0; !stop; i++) {
            const name = `R${round}-W${w}-${i}`;
            try {
              const r = await proc.client.callTool({ name: 'create_entities', arguments: { entities: [entity(name)] } });
              if (!r.isError) acknowledged.push(name);
            } catch {
              return;
            }
          }
        };
        const writers = Array.from({ length: 8 }, (_, w) => writer(w));
        // Killed once this round's writes are being acknowledged (a few more each round, so the kill lands at
        // different points of a write), not after a fixed time: a slow machine acknowledges fewer per second.
        const before = acknowledged.length;
        await vi.waitFor(() => expect(acknowledged.length - before).toBeGreaterThanOrEqual(6 + round * 3), {
          timeout: 60_000,
          interval: 5,
        });
        process.kill(proc.transport.pid!, 'SIGKILL');
        stop = true;
        await Promise.all(writers);
        await Promise.resolve(proc[Symbol.asyncDispose]()).catch(() => {});
        // The snapshot is always a complete file the reference can parse.
        expect(() => referenceLoad(readFileSync(path, 'utf8'))).not.toThrow();
      }
      expect(acknowledged.length).toBeGreaterThan(20);
      const names = await countIn(path);
      expect(acknowledged.filter((n) => !names.has(n))).toEqual([]);
    }, 120_000);
  }
});

const elapsed = async <T>(p: Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const value = await p;
  return [value, performance.now() - t0];
};
const text = (r: Record<string, unknown>) => (r.content as { text: string }[])[0]!.text;

describe.runIf(process.platform !== 'win32')('a lock held by another process at start', () => {
  it('initialize and tools/list are answered at once; the first call waits for the lock, then works', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    // This test process plays a live server holding the lock (same pid, same identity: a genuine owner).
    const lock = new FileLock(`${path}.lock`, { staleMs: 60_000, timeoutMs: 1000 });
    expect(lock.tryAcquire()).toBe(true);
    try {
      const [proc, startMs] = await elapsed(spawnStdio(bin, { args: ['--memory-path', path], env: { MEMORY_LOCK_TIMEOUT: '20s' } }));
      await using _ = proc;
      // The lock is held throughout: initialize is answered without waiting for it (before: only once the lock was
      // free; here: never, 60 s, then exit), nor for the 20 s lock timeout (a factor of it, not a wall-clock figure).
      expect(startMs).toBeLessThan(20_000 / 2);
      expect((await proc.client.listTools()).tools).toHaveLength(9);
      let done = false;
      const call = proc.client.callTool({ name: 'create_entities', arguments: { entities: [entity('Alice')] } }).finally(() => {
        done = true;
      });
      // The server says the call has been waiting for the lock (its own 1 s notice): the gate this test opens next.
      await expect.poll(() => proc.stderr()).toContain(`waiting for ${path}.lock, held by process ${process.pid}`);
      expect(done).toBe(false);
      lock.release();
      const res = await call;
      expect(res.isError).toBeFalsy();
      expect(referenceLoad(readFileSync(path, 'utf8')).entities).toEqual([entity('Alice')]);
      expect(proc.stderr()).toContain(`memory.jsonl.lock is held by process ${process.pid} since`);
    } finally {
      lock.release();
    }
  });

  it('a call that cannot get the lock within --lock-timeout gets a clear error, not a time-out', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    const lock = new FileLock(`${path}.lock`, { staleMs: 60_000, timeoutMs: 1000 });
    expect(lock.tryAcquire()).toBe(true);
    try {
      const spawned = performance.now();
      await using proc = await spawnStdio(bin, { args: ['--memory-path', path, '--lock-timeout', '1s'] });
      const [res, ms] = await elapsed(proc.client.callTool({ name: 'read_graph', arguments: {} }));
      expect(res.isError).toBe(true);
      expect(text(res)).toMatch(
        new RegExp(
          `^The memory file is locked by another mcp-server-memory \\(process ${process.pid} since .+\\) that did not release it within 1 s`,
        ),
      );
      // The server waits from its start (its load asks for the lock first), not from this call: the floor counts from the spawn.
      expect(performance.now() - spawned).toBeGreaterThanOrEqual(1000 - 50);
      expect(ms).toBeLessThan(1000 * 5); // a factor of the 1 s --lock-timeout, the contract here
    } finally {
      lock.release();
    }
  });

  it('a lock naming a live process that did not write it (pid reused after a crash) is taken over at once', async () => {
    using dir = tempDir();
    using other = unrelatedProcess();
    const path = join(dir.path, 'memory.jsonl');
    const id = processStart(other.pid)?.id;
    // As this version writes it (another identity), or as earlier versions did (no identity; written before `other` started).
    const variants = id
      ? [{ id: `${id.split(':')[0]}:1` }, { since: new Date(Date.now() - 3_600_000) }]
      : [{ since: new Date(Date.now() - 3_600_000) }];
    for (const [i, variant] of variants.entries()) {
      writeLock(`${path}.lock`, other.pid, variant);
      await using proc = await spawnStdio(bin, { args: ['--memory-path', path, '--log-level', 'warn'] });
      const [res, ms] = await elapsed(proc.client.callTool({ name: 'create_entities', arguments: { entities: [entity(`E${i}`)] } }));
      expect(res.isError).toBeFalsy();
      expect(ms).toBeLessThan(30_000 / 5); // taken over, not waited for: a factor of the 30 s default --lock-timeout
    }
    expect(referenceLoad(readFileSync(path, 'utf8')).entities).toHaveLength(variants.length);
  });
});

describe.runIf(process.platform !== 'win32')('the graph loads in the background', () => {
  it('initialize and tools/list come at once; a call waiting for the load hears its progress, a cancelled one stops waiting', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    writeFileSync(path, bigGraph(20_000));
    const size = statSync(path).size;
    const mib = (size / 1024 / 1024).toFixed(1);
    // Held by this test process (a genuine owner): the snapshot is read, the journal waits for the lock.
    const lock = new FileLock(`${path}.lock`, { staleMs: 60_000, timeoutMs: 1000 });
    expect(lock.tryAcquire()).toBe(true);
    try {
      await using proc = await spawnStdio(bin, { args: ['--memory-path', path], env: { MEMORY_LOCK_TIMEOUT: '30s' } });
      expect((await proc.client.listTools()).tools).toHaveLength(9);
      const progress: { progress: number; total?: number; message?: string }[] = [];
      const call = proc.client.callTool(
        { name: 'open_nodes', arguments: { names: ['Big7'] } },
        {
          onprogress: (p) => progress.push(p),
        },
      );
      const stop = new AbortController();
      const cancelled = proc.client.callTool({ name: 'read_graph', arguments: { limit: 1 } }, { signal: stop.signal });
      await expect.poll(() => progress.at(-1)?.progress).toBe(size); // the snapshot is read; the journal waits for the lock
      stop.abort();
      await expect(cancelled).rejects.toThrow();
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.at(-1)).toEqual({ progress: size, total: size, message: `loading the knowledge graph: ${mib} of ${mib} MiB` });
      lock.release();
      const res = await call;
      expect((res.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name)).toEqual(['Big7']);
      const all = await proc.client.callTool({ name: 'read_graph', arguments: { limit: 1 } });
      expect(all.structuredContent).toMatchObject({ total: { entities: 20_000, relations: 0 } });
    } finally {
      lock.release();
    }
  });
});

describe.runIf(process.platform !== 'win32')('a memory file that is a symbolic link', () => {
  it('2 processes, one opening the link and one the target, × 200 concurrent writes → all in the target, the link intact', async () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, 'real'));
    const target = join(dir.path, 'real', 'memory.jsonl');
    const link = join(dir.path, 'memory.jsonl');
    symlinkSync('real/memory.jsonl', link);
    const procs = await Promise.all(
      [link, target].map((path) => spawnStdio(bin, { args: ['--memory-path', path, '--log-level', 'warn'] })),
    );
    try {
      const results = await Promise.all(
        procs.flatMap((proc, p) =>
          Array.from({ length: 200 }, (_, i) =>
            proc.client.callTool({ name: 'create_entities', arguments: { entities: [entity(`L${p}-${i}`)] } }),
          ),
        ),
      );
      expect(results.filter((r) => r.isError)).toEqual([]);
    } finally {
      for (const proc of procs) await proc[Symbol.asyncDispose]();
    }
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(referenceLoad(readFileSync(target, 'utf8')).entities).toHaveLength(400);
  }, 120_000);
});
