import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh folder under the OS temp dir, removed on dispose. */
export function tempDir(): { path: string } & Disposable {
  const path = mkdtempSync(join(tmpdir(), 'mcpkit-memory-'));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Whether this process can mount a tmpfs (Linux, as root). A test that needs one skips without it, but
 * not under CI (which runs as root): there `smallDisk` throws and the test fails.
 */
export const tmpfsPossible = process.platform === 'linux' && process.getuid?.() === 0;
export const runsWithTmpfs = tmpfsPossible || Boolean(process.env.CI);

/** A real, small file system: a tmpfs of `bytes` mounted on a fresh folder, unmounted and removed on dispose. */
export function smallDisk(bytes: number): { path: string; fill(leaveBytes: number): void; free(): number } & Disposable {
  const dir = tempDir();
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir.path], { encoding: 'utf8' });
  if (mount.status !== 0) {
    dir[Symbol.dispose]();
    throw new Error(`could not mount a tmpfs (${mount.error?.message ?? mount.stderr.trim()}); the disk-full tests need root on Linux`);
  }
  const free = () => {
    const st = statfsSync(dir.path);
    return st.bavail * st.bsize;
  };
  return {
    path: dir.path,
    free,
    /** Writes a filler file so that about `leaveBytes` stay free. */
    fill(leaveBytes: number) {
      writeFileSync(join(dir.path, 'filler'), Buffer.alloc(Math.max(0, free() - leaveBytes)));
    },
    [Symbol.dispose]() {
      // Lazily: a file a failed test left open must not keep the mount (and the folder) behind.
      spawnSync('umount', ['-l', dir.path]);
      dir[Symbol.dispose]();
    },
  };
}

/** A live process that has nothing to do with the memory file (one that got a crashed server's pid), killed on dispose. */
export function unrelatedProcess(): { pid: number } & Disposable {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  if (child.pid === undefined) throw new Error('could not spawn a process');
  return { pid: child.pid, [Symbol.dispose]: () => child.kill('SIGKILL') };
}

/**
 * Writes a lock file naming `pid` on this host, written at `since` (also its mtime): with `id` as this
 * version writes it, without as earlier versions did.
 */
export function writeLock(path: string, pid: number, { since = new Date(), id }: { since?: Date; id?: string | undefined } = {}): void {
  writeFileSync(path, JSON.stringify({ pid, host: hostname(), since: since.toISOString(), ...(id !== undefined ? { id } : {}) }));
  utimesSync(path, since, since);
}

/** What the reference's loadGraph does with a file: its exact parser, for cross-checks. */
export function referenceLoad(text: string) {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return lines.reduce(
    (graph, line) => {
      const item = JSON.parse(line);
      if (item.type === 'entity') graph.entities.push({ name: item.name, entityType: item.entityType, observations: item.observations });
      if (item.type === 'relation') graph.relations.push({ from: item.from, to: item.to, relationType: item.relationType });
      return graph;
    },
    { entities: [] as unknown[], relations: [] as unknown[] },
  );
}

/** What the reference's saveGraph writes for a graph. */
export function referenceSave(graph: {
  entities: { name: string; entityType: string; observations: string[] }[];
  relations: { from: string; to: string; relationType: string }[];
}): string {
  return [
    ...graph.entities.map((e) => JSON.stringify({ type: 'entity', name: e.name, entityType: e.entityType, observations: e.observations })),
    ...graph.relations.map((r) => JSON.stringify({ type: 'relation', from: r.from, to: r.to, relationType: r.relationType })),
  ].join('\n');
}
