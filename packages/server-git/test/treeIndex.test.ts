/**
 * treeIndexChanges (a tree against the index, folder by folder, the cache-tree skipping folders) gives the
 * very changes a comparison of the flattened tree with the index's files gives: for every commit of a
 * history against indexes with a valid, a partly invalid and no cache-tree. And it reads only the folders
 * the cache-tree cannot vouch for.
 */
import { chmodSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CachePart } from '../src/engine/cacheBudget.js';
import type { GitContext } from '../src/engine/context.js';
import { rootTree } from '../src/engine/diff/treeEntries.js';
import { type PathChange, treeIndexChanges } from '../src/engine/diff/treeIndex.js';
import { readIndexFile, serializeIndex } from '../src/engine/git/indexFile.js';
import { loadIndex } from '../src/engine/git/indexSnapshot.js';
import { DEFAULT_OBJECT_LIMITS } from '../src/engine/git/objectLimits.js';
import { treeFiles } from '../src/engine/git/objects.js';
import { createRepoCache, openRepo, type Repo } from '../src/engine/repo.js';
import { gitRepo, hasGit, write } from './helpers.js';

const ctxOf = (root: string) =>
  ({ roots: { list: async () => [root] }, repoCache: createRepoCache(), objectLimits: DEFAULT_OBJECT_LIMITS }) as unknown as GitContext;

const plain = (changes: readonly PathChange[]) =>
  changes
    .map((c) => ({ path: c.path, a: c.a && { oid: c.a.oid, mode: c.a.mode }, b: c.b && { oid: c.b.oid, mode: c.b.mode } }))
    .sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));

/** The oracle: the flattened tree against the index's stage-0 files. */
async function flatChanges(repo: Repo, commit: string): Promise<PathChange[]> {
  const tree = await treeFiles(repo, commit);
  const files = loadIndex(repo).files;
  const out: PathChange[] = [];
  for (const [path, b] of files) {
    const a = tree.get(path) ?? null;
    if (!a || a.oid !== b.oid || a.mode !== b.mode) out.push({ path, a, b });
  }
  for (const [path, a] of tree) if (!files.has(path)) out.push({ path, a, b: null });
  return out;
}

/** The repository with its reads of tree entries recorded. */
function counting(repo: Repo, reads: string[]): Repo {
  return {
    ...repo,
    held: {
      part<V>(kind: string): CachePart<V> {
        const part = repo.held.part<V>(kind);
        if (kind !== 'treeEntries') return part;
        return {
          get: (key) => {
            reads.push(key);
            return part.get(key);
          },
          set: (key, value, bytes, ttl) => part.set(key, value, bytes, ttl),
          delete: (key) => part.delete(key),
        };
      },
    },
  } as Repo;
}

describe('treeIndexChanges', () => {
  it.skipIf(!hasGit)('equals the flattened comparison for every commit, with a valid, partly invalid and no cache-tree', async () => {
    using fx = gitRepo();
    const body = (n: number) => `${Array.from({ length: 5 }, (_, i) => `line ${i + n}`).join('\n')}\n`;
    const steps: (() => void)[] = [
      () => write(fx.repo, { 'a/b/c.txt': body(0), 'a/d.txt': body(1), 'e.txt': body(2), 'a-b.txt': 'x\n', 'a.c/f.txt': 'f\n' }),
      () => write(fx.repo, { 'a/b/c.txt': body(3), 'z/y/new.txt': 'new\n' }),
      () => fx.git('mv', 'a/d.txt', 'z/d-moved.txt'),
      () => fx.git('rm', '-q', '-r', 'a/b'),
      () => {
        fx.git('rm', '-q', 'e.txt');
        write(fx.repo, { 'e.txt/inside.txt': body(2) });
      },
      () => symlinkSync('a-b.txt', join(fx.repo, 'link')),
      () => chmodSync(join(fx.repo, 'z/y/new.txt'), 0o755),
    ];
    const commits: string[] = [fx.git('rev-parse', 'HEAD').trim()];
    for (const step of steps) {
      step();
      fx.git('add', '-A');
      fx.git('commit', '-q', '-m', 'step');
      commits.push(fx.git('rev-parse', 'HEAD').trim());
    }
    const states: [string, () => void][] = [
      ['cache-tree valid', () => {}],
      [
        'cache-tree partly invalid',
        () => {
          write(fx.repo, { 'z/y/new.txt': 'staged\n', 'a.c/g.txt': 'added\n' });
          fx.git('add', '-A');
          fx.git('rm', '-q', '--cached', 'a-b.txt');
        },
      ],
      ['no cache-tree', () => writeFileSync(join(fx.repo, '.git', 'index'), serializeIndex(readIndexFile(join(fx.repo, '.git')).entries))],
    ];
    let compared = 0;
    for (const [label, setUp] of states) {
      setUp();
      const parsed = readIndexFile(join(fx.repo, '.git'));
      expect(parsed.cacheTree === undefined, label).toBe(label === 'no cache-tree');
      for (const commit of commits) {
        const repo = await openRepo(ctxOf(fx.path), fx.repo);
        const walked = await treeIndexChanges(repo, await rootTree(repo, commit), loadIndex(repo));
        expect(plain(walked), `${label}, ${commit}`).toEqual(plain(await flatChanges(repo, commit)));
        compared += walked.length;
      }
      const repo = await openRepo(ctxOf(fx.path), fx.repo);
      expect(await treeIndexChanges(repo, null, loadIndex(repo))).toHaveLength(loadIndex(repo).files.size);
    }
    expect(compared).toBeGreaterThan(40);
  });

  it.skipIf(!hasGit)('reads only the folders whose cache-tree entry is invalid, and the cache-tree records git’s subtrees', async () => {
    using fx = gitRepo();
    const files: Record<string, string> = {};
    for (const dir of ['one', 'two', 'three']) for (let i = 0; i < 5; i++) files[`${dir}/sub/f${i}.txt`] = `${dir} ${i}\n`;
    write(fx.repo, files);
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'three folders');
    const cacheTree = readIndexFile(join(fx.repo, '.git')).cacheTree!;
    for (const dir of ['', 'one', 'two/sub']) expect(cacheTree.get(dir)?.oid, dir).toBe(fx.git('rev-parse', `HEAD:${dir}`).trim());
    expect(cacheTree.get('one')?.count).toBe(5);
    expect(cacheTree.get('')?.count).toBe(16);

    const walk = async () => {
      const reads: string[] = [];
      const repo = counting(await openRepo(ctxOf(fx.path), fx.repo), reads);
      const changes = await treeIndexChanges(repo, await rootTree(repo, fx.git('rev-parse', 'HEAD').trim()), loadIndex(repo));
      return { changes: changes.map((c) => c.path), reads };
    };
    expect(await walk()).toEqual({ changes: [], reads: [] });
    write(fx.repo, { 'two/sub/f1.txt': 'changed\n' });
    fx.git('add', 'two/sub/f1.txt');
    const staged = await walk();
    expect(staged.changes).toEqual(['two/sub/f1.txt']);
    // The root, two and two/sub are invalid; one and three are skipped unread.
    const trees = ['', 'two', 'two/sub'].map((dir) => fx.git('rev-parse', `HEAD:${dir}`).trim());
    expect(staged.reads.sort()).toEqual(trees.sort());
  });
});
