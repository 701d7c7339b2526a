/**
 * The built bin on a full disk (a real tmpfs; root on Linux, as CI runs): the journal is folded into
 * the snapshot on SIGTERM, and a fold that does not fit must keep the snapshot and the journal.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../src/server.js';
import { referenceSave, runsWithTmpfs, smallDisk } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const big = (name: string) => ({ name, entityType: 'note', observations: [`${name} ${'x'.repeat(7000)}`] });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.runIf(runsWithTmpfs)('mcp-server-memory on a full disk (a real tmpfs)', () => {
  it('SIGTERM with no room to fold the journal in: one line on stderr, the snapshot and the journal kept, nothing lost', async () => {
    using disk = smallDisk(2 * 1024 * 1024);
    const path = join(disk.path, 'memory.jsonl');
    const seed = referenceSave({ entities: [big('Seed')], relations: [] });
    writeFileSync(path, seed);
    const names = Array.from({ length: 8 }, (_, i) => `T${i}`);
    const proc = await spawnStdio(bin, { args: ['--memory-path', path] });
    try {
      // Room for the 8 journal records, not for a snapshot holding them too.
      disk.fill(80 * 1024);
      for (const name of names) {
        const r = await proc.client.callTool({ name: 'create_entities', arguments: { entities: [big(name)] } });
        expect(r.isError).toBeFalsy();
      }
      const pid = proc.transport.pid!;
      process.kill(pid, 'SIGTERM');
      await expect.poll(() => alive(pid)).toBe(false);
    } finally {
      await Promise.resolve(proc[Symbol.asyncDispose]()).catch(() => {});
    }
    const store = await openFileStore({ path, compactDelayMs: 60_000 });
    try {
      expect((await store.readGraph()).entities.map((e) => e.name)).toEqual(['Seed', ...names]);
    } finally {
      await store.close();
    }
    expect(readFileSync(path, 'utf8')).toBe(seed);
    expect(readdirSync(disk.path).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // One line, without a stack: what happened and that nothing was lost.
    expect(
      proc
        .stderr()
        .split('\n')
        .filter((l) => /could not fold the journal/.test(l)),
    ).toEqual([expect.stringMatching(/kept as they were.*: the disk is full \(ENOSPC: no space left on device, write\)$/)]);
    expect(proc.stderr()).not.toMatch(/^\s+at /m);
  });
});
