/** A filesystem without hard links (FAT, some network shares): the lock is created and written as before. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FileLock } from '../../src/store/lock.js';
import { runsWithTmpfs, smallDisk, tempDir } from '../helpers.js';

vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  const linkSync = () => {
    throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
  };
  return { ...fs, default: { ...fs, linkSync }, linkSync };
});

describe('FileLock without hard links', () => {
  it('falls back to creating the lock file, leaves no owner file, and is exclusive as before', () => {
    using dir = tempDir();
    const path = join(dir.path, 'm.lock');
    const a = new FileLock(path, { staleMs: 10_000, timeoutMs: 100 });
    const b = new FileLock(path, { staleMs: 10_000, timeoutMs: 100 });
    expect(a.tryAcquire()).toBe(true);
    expect(readdirSync(dir.path)).toEqual(['m.lock']);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(b.tryAcquire()).toBe(false);
    a.release();
    expect(existsSync(path)).toBe(false);
    expect(b.tryAcquire()).toBe(true);
    b.dispose();
    a.dispose();
    expect(readdirSync(dir.path)).toEqual([]);
  });

  it.runIf(runsWithTmpfs)(
    'on a full disk (a real tmpfs): a lock file that could not be written whole is removed, not left to block everyone',
    () => {
      using disk = smallDisk(1024 * 1024);
      const path = join(disk.path, 'm.lock');
      const a = new FileLock(path, { staleMs: 10_000, timeoutMs: 100 });
      // Taken once while there is room: from then on this lock creates the lock file and writes it.
      expect(a.tryAcquire()).toBe(true);
      a.release();
      disk.fill(0);
      expect(() => a.tryAcquire()).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
      expect(readdirSync(disk.path)).toEqual(['filler']);
      a.dispose();
    },
  );
});
