import { mkdirSync, readFileSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GitContext } from '../src/engine/context.js';
import { parseIndex, readIndexFile, serializeIndex } from '../src/engine/git/indexFile.js';
import { withIndexLock } from '../src/engine/git/indexLock.js';
import { indexFiles } from '../src/engine/git/indexSnapshot.js';
import { DEFAULT_OBJECT_LIMITS } from '../src/engine/git/objectLimits.js';
import { headCommit, readBlob, treeFiles } from '../src/engine/git/objects.js';
import { readWorktreeFile, type WorktreeState, worktreeState } from '../src/engine/git/worktreeState.js';
import { createRepoCache, openRepo, type Repo } from '../src/engine/repo.js';
import { gitRepo, hasGit, type RepoFixture, write } from './helpers.js';

async function open(fx: RepoFixture): Promise<Repo> {
  const ctx = {
    roots: { list: async () => [fx.path] },
    repoCache: createRepoCache(),
    objectLimits: DEFAULT_OBJECT_LIMITS,
  } as unknown as GitContext;
  return openRepo(ctx, fx.repo);
}

/** `git ls-files -s` / `git ls-tree -r` lines from a FileEntry map. */
function lines(map: Map<string, { path: string; oid: string; mode: number }>, stage = false): string {
  return [...map.values()].map((e) => `${e.mode.toString(8)} ${e.oid}${stage ? ' 0' : ''}\t${e.path}\n`).join('');
}

/** Our work-tree state in `git status --porcelain -uall` terms, for the unstaged column and untracked files. */
function porcelainOf(state: WorktreeState): string[] {
  const out = [...state.changed].map(([p, e]) => `${e === null ? 'D' : 'M'} ${p}`);
  for (const p of state.untracked) out.push(`? ${p}`);
  return out.sort();
}

function gitPorcelain(fx: RepoFixture): string[] {
  return fx
    .git('status', '--porcelain', '-uall', '--no-renames')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      if (l.startsWith('??')) return [`? ${l.slice(3)}`];
      const y = l[1];
      return y === ' ' ? [] : [`${y === 'D' ? 'D' : 'M'} ${l.slice(3)}`];
    })
    .sort();
}

describe('snapshot', () => {
  it.skipIf(!hasGit)('headCommit, treeFiles and indexFiles agree with git rev-parse, ls-tree -r and ls-files -s', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'a/b/c.txt': 'c', 'a.txt': 'a', 'a-b.txt': 'ab', a0: 'zero', 'x.sh': 'x' });
    symlinkSync('a.txt', join(fx.repo, 'ln'));
    fx.git('add', '.');
    fx.git('update-index', '--chmod=+x', 'x.sh');
    fx.git('commit', '-q', '-m', 'tree');
    const repo = await open(fx);
    const head = await headCommit(repo);
    expect(head).toBe(fx.git('rev-parse', 'HEAD').trim());
    const tree = await treeFiles(repo, head!);
    expect(lines(tree)).toBe(fx.git('ls-tree', '-r', 'HEAD').replace(/ blob /g, ' '));
    expect(await treeFiles(repo, head!)).toBe(tree); // memoized
    expect(await treeFiles(repo, fx.git('rev-parse', 'HEAD^{tree}').trim())).toBe(tree);
    expect(lines(await indexFiles(repo), true)).toBe(fx.git('ls-files', '-s'));
    expect(Buffer.from(await readBlob(repo, tree.get('a/b/c.txt')!.oid)).toString()).toBe('c');
    expect(Buffer.from(await readWorktreeFile(repo, 'ln')).toString()).toBe('a.txt');
  });

  it.skipIf(!hasGit)('headCommit is null on an unborn branch', async () => {
    using fx = gitRepo({ initial: false });
    expect(await headCommit(await open(fx))).toBeNull();
  });

  it.skipIf(!hasGit)('reads index versions 3 (intent-to-add) and 4 (prefix-compressed paths)', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'dir/one/long-name-1.txt': '1', 'dir/one/long-name-2.txt': '2', 'dir/two.txt': '3', 'ita.txt': 'i' });
    fx.git('add', 'dir');
    fx.git('add', '-N', 'ita.txt');
    const expected = fx.git('ls-files', '-s');
    for (const version of ['3', '4']) {
      fx.git('update-index', '--index-version', version);
      const parsed = readIndexFile(join(fx.repo, '.git'));
      expect(parsed.version).toBe(Number(version));
      expect(parsed.entries.map((e) => `${e.mode.toString(8)} ${e.oid} ${e.stage}\t${e.path}\n`).join('')).toBe(expected);
      expect(parsed.entries.find((e) => e.path === 'ita.txt')?.intentToAdd).toBe(true);
    }
  });

  it.skipIf(!hasGit)(
    'serializeIndex round-trips; an index written through the index lock is accepted by git with stat data intact',
    async () => {
      using fx = gitRepo();
      write(fx.repo, { 'a.txt': 'a', 'd/e.txt': 'e', 'ita.txt': 'i' });
      fx.git('add', 'a.txt', 'd');
      fx.git('add', '-N', 'ita.txt');
      const gitdir = join(fx.repo, '.git');
      const before = readIndexFile(gitdir);
      const again = parseIndex(serializeIndex(before.entries));
      expect(again.entries).toEqual(before.entries);
      const lsBefore = fx.git('ls-files', '-s', '--debug');
      await withIndexLock(await open(fx), async (held) => held.write(before.entries));
      expect(fx.git('ls-files', '-s', '--debug')).toBe(lsBefore); // same entries, same stat data
      expect(fx.git('diff-files', '--name-only')).toBe('ita.txt\n'); // only the intent-to-add entry differs
    },
    20_000,
  );

  it.skipIf(!hasGit)('worktreeState matches git status --porcelain -uall (changes, deletions, racy edits, ignores)', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'keep.txt': 'k', 'mod.txt': 'm', 'del.txt': 'd', 'dir/x.txt': 'x', '.gitignore': 'ign/\n*.o\n' });
    fx.git('add', '.');
    fx.git('commit', '-q', '-m', 'base');
    const repo = await open(fx);
    expect(porcelainOf(await worktreeState(repo))).toEqual([]);
    write(fx.repo, { 'mod.txt': 'M', 'new/a.txt': 'a', 'new/b/c.txt': 'c', 'ign/z.txt': 'z', 'q.o': 'o', 'dir/y.txt': 'y' });
    unlinkSync(join(fx.repo, 'del.txt'));
    // Touching without changing content: stat differs, content identical → not changed.
    const t = new Date(Date.now() - 60_000);
    utimesSync(join(fx.repo, 'keep.txt'), t, t);
    const state = await worktreeState(repo);
    expect(porcelainOf(state)).toEqual(gitPorcelain(fx));
    expect(state.changed.get('mod.txt')?.oid).toBe(fx.git('hash-object', 'mod.txt').trim());
    expect(state.changed.get('del.txt')).toBeNull();
    expect(state.untracked).toEqual(['dir/y.txt', 'new/a.txt', 'new/b/c.txt']);
    expect((await worktreeState(repo, { untracked: false })).untracked).toEqual([]);
  });

  it.skipIf(!hasGit)(
    'a 3,000-file tree: same answer as git',
    async () => {
      using fx = gitRepo();
      for (let d = 0; d < 30; d++) {
        mkdirSync(join(fx.repo, `d${d}`));
        for (let f = 0; f < 100; f++) writeFileSync(join(fx.repo, `d${d}`, `f${f}.txt`), `${d}/${f}\n`);
      }
      fx.git('add', '.');
      fx.git('commit', '-q', '-m', 'many');
      writeFileSync(join(fx.repo, 'd3', 'f7.txt'), 'changed\n');
      writeFileSync(join(fx.repo, 'd9', 'new.txt'), 'new\n');
      unlinkSync(join(fx.repo, 'd29', 'f99.txt'));
      const repo = await open(fx);
      const state = await worktreeState(repo);
      expect(porcelainOf(state)).toEqual(gitPorcelain(fx));
      expect((await indexFiles(repo)).size).toBe(3001);
      expect(readFileSync(join(fx.repo, 'd3', 'f7.txt'), 'utf8')).toBe('changed\n');
    },
    30_000,
  );
});

describe('the untracked cache', () => {
  /** Every folder of the work tree (not .git) dated an hour ago, so the walk may cache it. */
  function ageFolders(dir: string, rels: string[]): void {
    const old = new Date(Date.now() - 3_600_000);
    for (const rel of rels) utimesSync(join(dir, rel), old, old);
  }

  it.skipIf(!hasGit)('notices new files, removed files, changed .gitignore files and index changes in cached folders', async () => {
    using fx = gitRepo();
    write(fx.repo, { 'a/one.txt': '1', 'a/b/two.txt': '2', '.gitignore': '*.log\n', 'a/b/keep.log': 'x' });
    fx.git('add', 'a/one.txt', '.gitignore');
    fx.git('commit', '-q', '-m', 'base');
    const folders = ['', 'a', 'a/b'];
    ageFolders(fx.repo, folders);
    const repo = await open(fx);
    const state = async () => (await worktreeState(repo)).untracked;
    expect(await state()).toEqual(['a/b/two.txt']);
    expect(await state()).toEqual(['a/b/two.txt']); // from the cache

    write(fx.repo, { 'a/b/three.txt': '3' }); // a/b's mtime changes
    expect(await state()).toEqual(['a/b/three.txt', 'a/b/two.txt']);
    ageFolders(fx.repo, folders);
    expect(await state()).toEqual(['a/b/three.txt', 'a/b/two.txt']);

    // The top .gitignore changes content (no folder's stat changes): every folder below is read again.
    writeFileSync(join(fx.repo, '.gitignore'), '*.txt\n');
    expect(await state()).toEqual(['a/b/keep.log']);
    writeFileSync(join(fx.repo, '.gitignore'), '*.log\n');
    expect(await state()).toEqual(['a/b/three.txt', 'a/b/two.txt']);
    // A .gitignore appears deeper down: only its folder's chain changes.
    ageFolders(fx.repo, folders);
    await state();
    writeFileSync(join(fx.repo, 'a/b/.gitignore'), 'three.txt\n');
    utimesSync(join(fx.repo, 'a/b'), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    expect(await state()).toEqual(['a/b/.gitignore', 'a/b/two.txt']);
    unlinkSync(join(fx.repo, 'a/b/.gitignore'));

    unlinkSync(join(fx.repo, 'a/b/two.txt'));
    ageFolders(fx.repo, folders);
    expect(await state()).toEqual(['a/b/three.txt']);
    expect(await state()).toEqual(['a/b/three.txt']);

    fx.git('add', 'a/b/three.txt'); // only the index changes: three.txt is tracked now
    expect(await state()).toEqual([]);
    expect(porcelainOf(await worktreeState(repo))).toEqual(gitPorcelain(fx));
  });
});
