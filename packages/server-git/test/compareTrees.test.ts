/**
 * compareTrees (what git_show and blame's rename lookup use) walks only the subtrees that differ: it must
 * give the very pairs comparePairs gives over the two trees flattened, for every commit of a history with
 * nested folders, renames, deletions, a file turned into a folder and back, a symlink and a submodule entry.
 */
import { symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GitContext } from '../src/engine/context.js';
import { comparePairs, compareTrees, type LazyPair, treeSnapshot } from '../src/engine/diff/changes.js';
import { DEFAULT_OBJECT_LIMITS } from '../src/engine/git/objectLimits.js';
import { createRepoCache, openRepo } from '../src/engine/repo.js';
import { gitRepo, hasGit, write } from './helpers.js';

const plain = (pairs: LazyPair[]) =>
  pairs.map((p) => ({
    old: p.old && { path: p.old.path, oid: p.old.oid, mode: p.old.mode },
    new: p.new && { path: p.new.path, oid: p.new.oid, mode: p.new.mode },
    score: p.score,
  }));

describe('compareTrees', () => {
  it.skipIf(!hasGit)('gives the pairs comparePairs gives over the flattened trees, commit by commit', async () => {
    using fx = gitRepo();
    const body = (n: number, tag: string) => `${Array.from({ length: 40 }, (_, i) => `${tag} line ${i + n}`).join('\n')}\n`;
    const steps: (() => void)[] = [
      () => write(fx.repo, { 'a/b/c.txt': body(0, 'c'), 'a/d.txt': body(1, 'd'), 'e.txt': body(2, 'e'), 'a-b.txt': 'x\n' }),
      () => write(fx.repo, { 'a/b/c.txt': body(3, 'c'), 'z/new.txt': 'new\n' }),
      () => fx.git('mv', 'a/d.txt', 'z/d-moved.txt'),
      () => fx.git('rm', '-q', '-r', 'a/b'),
      () => {
        fx.git('rm', '-q', 'e.txt');
        write(fx.repo, { 'e.txt/inside.txt': body(2, 'e') });
      },
      () => symlinkSync('a-b.txt', join(fx.repo, 'link')),
      () => {
        unlinkSync(join(fx.repo, 'link'));
        write(fx.repo, { link: 'now a file\n' });
        fx.git('update-index', '--add', '--cacheinfo', `160000,${fx.git('rev-parse', 'HEAD').trim()},sub`);
      },
      () => {
        fx.git('rm', '-q', '-r', 'e.txt');
        write(fx.repo, { 'e.txt': body(2, 'e') });
      },
    ];
    for (const step of steps) {
      step();
      fx.git('add', '-A');
      fx.git('commit', '-q', '-m', 'step');
    }
    const ctx = {
      roots: { list: async () => [fx.path] },
      repoCache: createRepoCache(),
      objectLimits: DEFAULT_OBJECT_LIMITS,
    } as unknown as GitContext;
    const commits = fx.git('rev-list', 'HEAD').trim().split('\n');
    let compared = 0;
    for (const oid of commits) {
      const parent = fx.git('rev-list', '--parents', '-n', '1', oid).trim().split(' ')[1] ?? null;
      for (const renames of [true, false]) {
        // A fresh repository object each time: nothing flattened before the walk.
        const repo = await openRepo({ ...ctx, repoCache: createRepoCache() }, fx.repo);
        const walked = await compareTrees(repo, parent, oid, { renames });
        const flat = await comparePairs(await treeSnapshot(repo, parent), await treeSnapshot(repo, oid), { renames });
        expect(plain(walked), `${oid} renames ${renames}`).toEqual(plain(flat));
        for (let i = 0; i < walked.length; i++) {
          for (const side of ['old', 'new'] as const) {
            const w = walked[i]![side];
            if (w && (w.mode & 0o170000) !== 0o160000)
              expect(Buffer.from(await w.load())).toEqual(Buffer.from(await flat[i]![side]!.load()));
          }
        }
        compared += walked.length;
      }
    }
    expect(compared).toBeGreaterThan(20);
  });
});
