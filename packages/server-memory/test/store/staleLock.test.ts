/**
 * A lock file without an `id` (earlier versions; macOS and the BSDs) naming a live process that
 * started before it was written, but that cannot be a memory server (pid 1: init, or a container's
 * entry point, after a crash and a reboot): stale once it is `--lock-stale` old, and no message ever
 * suggests stopping a process that is not proven to own the lock.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { connectInMemory } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryServer, type FileStoreOptions, openFileStore } from '../../src/server.js';
import { FileLock, processStart } from '../../src/store/lock.js';
import { commandLine, mayBeMemoryServer } from '../../src/store/processInfo.js';
import { referenceLoad, tempDir, unrelatedProcess, writeLock } from '../helpers.js';

const linux = process.platform === 'linux';
const pid1 = linux ? commandLine(1) : null;
/** pid 1 here is what it is on a host or in a CI runner (init, systemd, an agent), not a Node.js process. */
const pid1IsInit = pid1 !== null && !mayBeMemoryServer(pid1);
const sleepMs = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const alice = { name: 'Alice', entityType: 'person', observations: ['o'] };

async function serve(path: string, options: Partial<FileStoreOptions>) {
  const store = await openFileStore({ path, openWhenLocked: 'defer', compactDelayMs: 60_000, ...options });
  const pair = await connectInMemory(createMemoryServer({ store }));
  const create = async () =>
    (await pair.client.callTool({ name: 'create_entities', arguments: { entities: [alice] } })) as {
      content: { text: string }[];
      isError?: boolean;
    };
  return {
    create,
    close: async () => {
      await pair[Symbol.asyncDispose]();
      await store.close();
    },
  };
}

describe.runIf(linux && pid1IsInit)('a lock without id naming pid 1 (a live process that is not a memory server)', () => {
  it('is stale once it is --lock-stale old: writes succeed', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    writeLock(`${path}.lock`, 1); // written now: after pid 1 started, so the start time alone can't rule it out
    expect(processStart(1)!.at).toBeLessThan(Date.now());
    const server = await serve(path, { lockStaleMs: 300, lockTimeoutMs: 10_000 });
    const res = await server.create();
    await server.close();
    expect(res.isError).toBeFalsy();
    expect(referenceLoad(readFileSync(path, 'utf8')).entities).toEqual([alice]);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('FileLock: held while younger than staleMs, taken after', () => {
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    writeLock(path, 1);
    const lock = new FileLock(path, { staleMs: 300, timeoutMs: 50 });
    expect(lock.tryAcquire()).toBe(false);
    sleepMs(400);
    expect(lock.tryAcquire()).toBe(true);
    lock.release();
  });

  it('while it holds a call up, the error says to remove the stale lock file, and never to stop or kill pid 1', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    writeLock(`${path}.lock`, 1);
    const server = await serve(path, { lockStaleMs: 60_000, lockTimeoutMs: 300 });
    const res = await server.create();
    await server.close();
    expect(res.isError).toBe(true);
    const text = res.content[0]!.text;
    expect(text).toMatch(/^The memory file is locked by process 1 since \S+, which is not known to be a memory server/);
    expect(text).toContain(`if no other memory server uses this file, the lock is stale: remove the stale lock file ${path}.lock.`);
    expect(text).not.toMatch(/\b(stop|kill|end|terminate)\b/i);
  });
});

describe.runIf(linux)('a lock without id naming a live process that started before it was written', () => {
  it('is taken once stale when that process is not a JavaScript runtime and does not mention memory (a shell command)', () => {
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      using dir = tempDir();
      const path = join(dir.path, 'm.lock');
      sleepMs(100); // let it exec `sleep`
      expect(mayBeMemoryServer(commandLine(sleeper.pid!)!)).toBe(false);
      writeLock(path, sleeper.pid!, { since: new Date(Date.now() + 3000) });
      const lock = new FileLock(path, { staleMs: 1000, timeoutMs: 50 });
      expect(lock.tryAcquire()).toBe(false); // not stale yet
      writeLock(path, sleeper.pid!, { since: new Date(Date.now() - 1500) });
      expect(lock.tryAcquire()).toBe(true);
      lock.release();
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('is kept, however old, when that process could be a memory server (Node.js, or its command line names memory)', () => {
    using other = unrelatedProcess();
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    sleepMs(100);
    // Written after the process started (it may be an older server mid-write), an hour ago.
    writeLock(path, other.pid);
    utimesSync(path, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    const lock = new FileLock(path, { staleMs: 1000, timeoutMs: 50 });
    expect(lock.tryAcquire()).toBe(false);
  });

  it('the error still says to stop the process when the lock proves it is the owner (its id matches)', async () => {
    using other = unrelatedProcess();
    using dir = tempDir();
    const path = join(dir.path, 'memory.jsonl');
    writeLock(`${path}.lock`, other.pid, { id: processStart(other.pid)!.id! });
    const server = await serve(path, { lockStaleMs: 60_000, lockTimeoutMs: 300 });
    const res = await server.create();
    await server.close();
    expect(res.content[0]!.text).toMatch(
      new RegExp(
        `^The memory file is locked by another mcp-server-memory \\(process ${other.pid} since .+stop that process if it is stuck\\.$`,
      ),
    );
  });
});

describe('what could be a memory server', () => {
  it('a JavaScript runtime, or a command line that names memory; not init, a shell or an empty (kernel) command line', () => {
    for (const args of [
      ['node', '/x/dist/cli.js'],
      ['/usr/local/bin/node', 'server.js'],
      ['node20', 'a.js'],
      ['bun', 'run', 'x'],
      ['/opt/npx-cache/mcp-server-memory'],
      ['python3', 'wrapper.py', '--memory-path', '/tmp/m.jsonl'],
    ]) {
      expect(mayBeMemoryServer(args)).toBe(true);
    }
    for (const args of [
      [],
      ['/sbin/init'],
      ['/lib/systemd/systemd', '--system'],
      ['/process_api', '--addr', '0.0.0.0'],
      ['bash'],
      ['sleep', '60'],
    ]) {
      expect(mayBeMemoryServer(args)).toBe(false);
    }
  });
});
