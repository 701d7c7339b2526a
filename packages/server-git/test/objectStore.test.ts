import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import type { GitContext } from '../src/engine/context.js';
import { DEFAULT_OBJECT_LIMITS } from '../src/engine/git/objectLimits.js';
import { findTreeEntry, parseCommitPlain, parseTreePlain } from '../src/engine/git/objectRead.js';
import { createObjectStore } from '../src/engine/git/objectStore.js';
import { createRepoCache, openRepo } from '../src/engine/repo.js';
import { connect, gitEnv, gitRepo, hasGit, type RepoFixture, text, write } from './helpers.js';

/** Every object of the repository: oid → type, from `git cat-file --batch-all-objects`. */
function allObjects(fx: RepoFixture): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of fx.git('cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)').split('\n')) {
    const [oid, type] = line.split(' ');
    if (oid && type) out.set(oid, type);
  }
  return out;
}

function catFile(fx: RepoFixture, type: string, oid: string): Buffer {
  return execFileSync('git', ['cat-file', type, oid], { cwd: fx.repo, env: gitEnv(), maxBuffer: 64 * 1024 * 1024 });
}

/** Every object's content, from one `git cat-file --batch`. */
function catAll(fx: RepoFixture, oids: readonly string[]): Map<string, Buffer> {
  const out = execFileSync('git', ['cat-file', '--batch'], {
    cwd: fx.repo,
    env: gitEnv(),
    input: `${oids.join('\n')}\n`,
    maxBuffer: 256 * 1024 * 1024,
  });
  const map = new Map<string, Buffer>();
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(10, at);
    const [oid, , size] = out.toString('latin1', at, eol).split(' ');
    map.set(oid!, out.subarray(eol + 1, eol + 1 + Number(size)));
    at = eol + 1 + Number(size) + 1;
  }
  return map;
}

/** A history where one file changes a little in each commit (so packs hold delta chains), plus a folder. */
function history(fx: RepoFixture, commits: number): void {
  const lines = Array.from({ length: 400 }, (_, i) => `line ${i} of a file that changes a little every commit`);
  for (let k = 0; k < commits; k++) {
    lines[(k * 37) % lines.length] = `changed in commit ${k}`;
    write(fx.repo, { 'big.txt': `${lines.join('\n')}\n`, [`dir/sub/f${k % 5}.txt`]: `file ${k}\n`, '.gitignore': 'x\n' });
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', `commit ${k}\n\nbody ${k}`);
  }
}

function expectStoreMatchesGit(fx: RepoFixture): number {
  const store = createObjectStore(join(fx.repo, '.git')).forCall(DEFAULT_OBJECT_LIMITS);
  const objects = allObjects(fx);
  const contents = catAll(fx, [...objects.keys()]);
  for (const [oid, type] of objects) {
    const raw = store.read(oid);
    expect(raw, oid).not.toBeNull();
    expect(raw!.type, oid).toBe(type);
    expect(raw!.data.equals(contents.get(oid)!), `${type} ${oid}`).toBe(true);
    // The size from the object's header alone (a delta's result size from the delta's own header).
    expect(store.size(oid), `size of ${type} ${oid}`).toBe(contents.get(oid)!.length);
  }
  expect(store.size('0123456789012345678901234567890123456789')).toBeNull();
  return objects.size;
}

describe('object store', () => {
  it.skipIf(!hasGit)('reads every object as git cat-file does: loose, packed with ofs-deltas, packed with ref-deltas', () => {
    using fx = gitRepo();
    history(fx, 30);
    // Loose objects only.
    expect(expectStoreMatchesGit(fx)).toBeGreaterThan(100);
    // One pack with offset deltas (git's default), aggressive so chains are long.
    fx.git('repack', '-a', '-d', '-f', '--depth=50', '--window=50');
    expect(fx.git('count-objects', '-v')).toMatch(/^count: 0$/m);
    expect(
      fx.git(
        'verify-pack',
        '-v',
        ...fs
          .readdirSync(join(fx.repo, '.git/objects/pack'))
          .filter((n) => n.endsWith('.idx'))
          .map((n) => join(fx.repo, '.git/objects/pack', n)),
      ),
    ).toMatch(/chain length = [2-9]/);
    expectStoreMatchesGit(fx);
    // Reference deltas (what a fetch's thin pack, once indexed, or an old git writes).
    fx.git('-c', 'repack.useDeltaBaseOffset=false', 'repack', '-a', '-d', '-f', '--depth=50', '--window=50');
    expectStoreMatchesGit(fx);
    // A version 1 .idx (`pack.indexVersion=1`, what git before 1.5.2 wrote): read here too, as the only reader.
    fx.git('-c', 'pack.indexVersion=1', 'repack', '-a', '-d', '-f');
    const idx = fs.readdirSync(join(fx.repo, '.git/objects/pack')).find((n) => n.endsWith('.idx'))!;
    expect(fs.readFileSync(join(fx.repo, '.git/objects/pack', idx)).readUInt32BE(0)).not.toBe(0xff744f63);
    expectStoreMatchesGit(fx);
  });

  it.skipIf(!hasGit)('answers null for a missing object, and finds a pack written after it listed the pack folder', () => {
    using fx = gitRepo();
    history(fx, 3);
    const store = createObjectStore(join(fx.repo, '.git')).forCall(DEFAULT_OBJECT_LIMITS);
    expect(store.read('0123456789012345678901234567890123456789')).toBeNull();
    expect(store.read('not an oid')).toBeNull();
    // A new commit, then everything packed (the loose files removed): the store lists the folder again on a miss.
    history(fx, 1);
    const head = fx.git('rev-parse', 'HEAD').trim();
    fx.git('repack', '-a', '-d');
    fx.git('prune-packed');
    const raw = store.read(head);
    expect(raw?.type).toBe('commit');
    expect(raw!.data.equals(catFile(fx, 'commit', head))).toBe(true);
  });

  it.skipIf(!hasGit)('parses trees and commits as isomorphic-git does, and a tree entry found by name is the one it lists', async () => {
    using fx = gitRepo();
    history(fx, 4);
    write(fx.repo, { 'ünïcode.txt': 'u\n', 'a b.txt': 'space\n', 'a-b.txt': 'dash\n', 'a/b.txt': 'folder\n' });
    fs.symlinkSync('a-b.txt', join(fx.repo, 'link'));
    fx.git('add', '-A');
    fx.git('commit', '-q', '-m', 'names\r\n\r\n\r\nwith CRs\n\n\n');
    fx.git('repack', '-a', '-d');
    const store = createObjectStore(join(fx.repo, '.git')).forCall(DEFAULT_OBJECT_LIMITS);
    const gitArgs = { fs, dir: fx.repo, gitdir: join(fx.repo, '.git') };
    let trees = 0;
    for (const [oid, type] of allObjects(fx)) {
      const raw = store.read(oid)!;
      if (type === 'tree') {
        const ours = parseTreePlain(raw.data);
        const theirs = (await git.readTree({ ...gitArgs, oid })).tree;
        if (ours) {
          trees++;
          expect(ours).toEqual(theirs);
        }
        for (const e of theirs) {
          const found = findTreeEntry(raw.data, e.path);
          if (found !== null) expect(found).toEqual(e);
        }
        if (findTreeEntry(raw.data, 'absent') !== null) expect(findTreeEntry(raw.data, 'absent')).toBeUndefined();
      } else if (type === 'commit') {
        expect(parseCommitPlain(raw.data.toString('utf8'))).toEqual((await git.readCommit({ ...gitArgs, oid })).commit);
      }
    }
    expect(trees).toBeGreaterThan(5);
  });

  it.skipIf(!hasGit)('leaves to isomorphic-git a tree it would refuse (a `.git` entry): the same error either way', async () => {
    using fx = gitRepo();
    const blob = fx.git('hash-object', '-w', 'test.txt').trim();
    const tree = execFileSync('git', ['mktree', '--missing'], {
      cwd: fx.repo,
      env: gitEnv(),
      input: `100644 blob ${blob}\t.GIT\n`,
      encoding: 'utf8',
    }).trim();
    const store = createObjectStore(join(fx.repo, '.git')).forCall(DEFAULT_OBJECT_LIMITS);
    expect(parseTreePlain(store.read(tree)!.data)).toBeNull();
    expect(findTreeEntry(store.read(tree)!.data, '.GIT')).toBeNull();
    const ctx = {
      roots: { list: async () => [fx.path] },
      repoCache: createRepoCache(),
      objectLimits: DEFAULT_OBJECT_LIMITS,
    } as unknown as GitContext;
    const repo = await openRepo(ctx, fx.repo);
    const { readTree } = await import('../src/engine/git/objectRead.js');
    await expect(readTree(repo, tree)).rejects.toThrow(/\.GIT/);
  });

  it.skipIf(!hasGit)('a repository packed with a version 1 .idx answers git_show (abbreviated id) and git_checkout', async () => {
    using fx = gitRepo();
    history(fx, 3);
    fx.git('branch', 'other');
    fx.git('-c', 'pack.indexVersion=1', 'repack', '-a', '-d', '-f');
    const head = fx.git('rev-parse', 'HEAD').trim();
    await using c = await connect({ repositories: [fx.repo] });
    const show = await c.client.callTool({ name: 'git_show', arguments: { repo_path: fx.repo, revision: head.slice(0, 7) } });
    expect(text(show)).toContain(`Commit: '${head}'`);
    const checkout = await c.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repo, branch_name: 'other' } });
    expect(text(checkout)).toBe("Switched to branch 'other'");
  });
});
