import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileLock, LockTimeoutError } from '../src/store/lock.js';
import { tempDir } from './helpers.js';

const owner = (pid: number, host = hostname()) => JSON.stringify({ pid, host, since: new Date().toISOString() });
const deadPid = () => spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();

describe('FileLock', () => {
  it('is exclusive, and free again after release', () => {
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    const a = new FileLock(path, { staleMs: 10_000, timeoutMs: 100 });
    const b = new FileLock(path, { staleMs: 10_000, timeoutMs: 100 });
    expect(a.tryAcquire()).toBe(true);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(b.tryAcquire()).toBe(false);
    a.release();
    expect(existsSync(path)).toBe(false);
    expect(b.tryAcquire()).toBe(true);
    b.release();
  });

  it('takes over at once the lock of a dead process on this host (a server killed mid-write)', () => {
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    writeFileSync(path, owner(Number(deadPid())));
    expect(new FileLock(path, { staleMs: 60_000, timeoutMs: 100 }).tryAcquire()).toBe(true);
  });

  it('never takes the lock of a live process on this host, however old', async () => {
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    writeFileSync(path, owner(process.ppid));
    utimesSync(path, new Date(0), new Date(0));
    const lock = new FileLock(path, { staleMs: 1000, timeoutMs: 50 });
    expect(lock.tryAcquire()).toBe(false);
    await expect(lock.acquire()).rejects.toBeInstanceOf(LockTimeoutError);
  });

  it('judges a lock from another host, or unreadable, by its age', () => {
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    writeFileSync(path, owner(1, 'elsewhere'));
    const lock = new FileLock(path, { staleMs: 5000, timeoutMs: 50 });
    expect(lock.tryAcquire()).toBe(false);
    utimesSync(path, new Date(Date.now() - 10_000), new Date(Date.now() - 10_000));
    expect(lock.tryAcquire()).toBe(true);
    lock.release();
    writeFileSync(path, '');
    expect(lock.tryAcquire()).toBe(false);
    utimesSync(path, new Date(0), new Date(0));
    expect(lock.tryAcquire()).toBe(true);
  });

  it('release leaves alone a lock that is no longer ours', () => {
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    const a = new FileLock(path, { staleMs: 10_000, timeoutMs: 100 });
    expect(a.tryAcquire()).toBe(true);
    writeFileSync(`${path}.new`, owner(process.ppid));
    renameSync(`${path}.new`, path);
    a.release();
    expect(existsSync(path)).toBe(true);
  });
});
