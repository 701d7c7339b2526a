/**
 * Abbreviated object ids (`git_show 28a9`, `git_diff 28a9c12`): the engine's own prefix search in each
 * pack's .idx and the loose-object folder, checked against isomorphic-git's `expandOid` (what the lookup
 * used before, so the answer for every prefix must be the same: the object, ambiguous, or not found) on
 * real repositories — loose objects, one pack, several packs, an object both packed and loose — and
 * through git_show over a real SDK client.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import type { GitContext } from '../src/engine/context.js';
import { resolveObject } from '../src/engine/diff/rev.js';
import { DEFAULT_OBJECT_LIMITS } from '../src/engine/git/objectLimits.js';
import { createObjectStore } from '../src/engine/git/objectStore.js';
import { createRepoCache, openRepo } from '../src/engine/repo.js';
import { connect, gitRepo, hasGit, type RepoFixture, text, write } from './helpers.js';

/** Every object of the repository, from `git cat-file --batch-all-objects`. */
function allOids(fx: RepoFixture): string[] {
  return fx
    .git('cat-file', '--batch-all-objects', '--batch-check=%(objectname)')
    .split('\n')
    .filter((l) => /^[0-9a-f]{40}$/.test(l));
}

/** isomorphic-git's answer for a prefix: the oid, 'ambiguous' or 'none'. */
async function isoGitAnswer(gitdir: string, prefix: string): Promise<string> {
  try {
    return await git.expandOid({ fs, gitdir, oid: prefix });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'AmbiguousError') return 'ambiguous';
    if (code === 'NotFoundError') return 'none';
    throw error;
  }
}

/** The engine's answer for a prefix, in the same terms. */
function storeAnswer(gitdir: string, prefix: string): string {
  const found = createObjectStore(gitdir).forCall(DEFAULT_OBJECT_LIMITS).startingWith(prefix, 2);
  expect(found, prefix).not.toBeNull();
  return found!.length === 1 ? found![0]! : found!.length === 0 ? 'none' : 'ambiguous';
}

/** For every object, its prefixes of 4 to 8 digits and the whole id answer as isomorphic-git answers them. */
async function expectSameAsIsomorphicGit(fx: RepoFixture): Promise<{ ambiguous: number; unique: number }> {
  const gitdir = join(fx.repo, '.git');
  const seen = new Set<string>();
  const counts = { ambiguous: 0, unique: 0 };
  for (const oid of allOids(fx)) {
    for (const len of [4, 5, 7, 40]) {
      const prefix = oid.slice(0, len);
      if (seen.has(prefix)) continue;
      seen.add(prefix);
      const expected = await isoGitAnswer(gitdir, prefix);
      expect(storeAnswer(gitdir, prefix), prefix).toBe(expected);
      if (expected === 'ambiguous') counts.ambiguous++;
      else counts.unique++;
    }
  }
  return counts;
}

/** The blob id git gives `content`. */
function blobId(content: string): string {
  const bytes = Buffer.from(content);
  return createHash('sha1')
    .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
    .digest('hex');
}

/** A blob content whose id starts with `oid`'s first 4 digits but not its first 8. */
function collidingContent(oid: string): string {
  for (let n = 0; ; n++) {
    const content = `collides with ${oid.slice(0, 4)}: ${n}\n`;
    const id = blobId(content);
    if (id.startsWith(oid.slice(0, 4)) && !id.startsWith(oid.slice(0, 8))) return content;
  }
}

/** A commit, then a loose blob sharing its first 4 digits (not 8): its 4-digit prefix is ambiguous. */
function ambiguousRepo(): { fx: RepoFixture; head: string; blob: string; looseBlob: Buffer } {
  const fx = gitRepo();
  write(fx.repo, { 'a.txt': 'one\n' });
  fx.git('add', '-A');
  fx.git('commit', '-q', '-m', 'second');
  const head = fx.git('rev-parse', 'HEAD').trim();
  const content = collidingContent(head);
  fs.writeFileSync(join(fx.path, 'collide.txt'), content);
  const blob = fx.git('hash-object', '-w', join(fx.path, 'collide.txt')).trim();
  expect(blob).toBe(blobId(content));
  // Reachable (a tag names it), so a repack packs it.
  fx.git('tag', 'the-blob', blob);
  const looseBlob = fs.readFileSync(join(fx.repo, '.git/objects', blob.slice(0, 2), blob.slice(2)));
  return { fx, head, blob, looseBlob };
}

const ctxFor = (fx: RepoFixture) =>
  ({ roots: { list: async () => [fx.path] }, repoCache: createRepoCache(), objectLimits: DEFAULT_OBJECT_LIMITS }) as unknown as GitContext;

/** The shortest prefix of `oid` (4 digits or more) that no other object of the list starts. */
function uniquePrefix(oid: string, all: readonly string[]): string {
  for (let len = 4; len < 40; len++) {
    const prefix = oid.slice(0, len);
    if (!all.some((o) => o !== oid && o.startsWith(prefix))) return prefix;
  }
  return oid;
}

describe('abbreviated object ids', () => {
  it.skipIf(!hasGit)(
    'expand as isomorphic-git expands them: loose, one pack, several packs, packed and loose at once',
    async () => {
      using fx = gitRepo();
      for (let k = 0; k < 40; k++) {
        write(fx.repo, { [`f${k % 7}.txt`]: `content ${k}\n`, [`dir/g${k}.txt`]: `g ${k}\n` });
        fx.git('add', '-A');
        fx.git('commit', '-q', '-m', `commit ${k}`);
      }
      // Loose objects only.
      const loose = await expectSameAsIsomorphicGit(fx);
      expect(loose.unique).toBeGreaterThan(300);
      // One pack, the loose files kept too (each object in both places counts once).
      fx.git('repack', '-a', '-q');
      expect(fx.git('count-objects', '-v')).toMatch(/^in-pack: [1-9]/m);
      expect(fx.git('count-objects', '-v')).toMatch(/^count: [1-9]/m);
      await expectSameAsIsomorphicGit(fx);
      // Packed only, then a second pack and new loose objects beside it.
      fx.git('prune-packed');
      await expectSameAsIsomorphicGit(fx);
      for (let k = 0; k < 10; k++) {
        write(fx.repo, { [`h${k}.txt`]: `h ${k}\n` });
        fx.git('add', '-A');
        fx.git('commit', '-q', '-m', `more ${k}`);
      }
      fx.git('repack', '-q');
      write(fx.repo, { 'last.txt': 'last\n' });
      fx.git('add', '-A');
      fx.git('commit', '-q', '-m', 'last');
      expect(fs.readdirSync(join(fx.repo, '.git/objects/pack')).filter((n) => n.endsWith('.idx'))).toHaveLength(2);
      await expectSameAsIsomorphicGit(fx);
    },
    120_000,
  ); // a hundred git CLI runs: minutes on a loaded 2-core machine, seconds on a quiet one

  it.skipIf(!hasGit)('a prefix two objects share is ambiguous, loose or packed; a longer one is unique', async () => {
    const { fx, head, blob, looseBlob } = ambiguousRepo();
    using _fx = fx;
    const gitdir = join(fx.repo, '.git');
    const short = head.slice(0, 4);
    const longer = uniquePrefix(head, [head, blob]);
    for (const state of ['both loose', 'both packed', 'packed and loose']) {
      if (state === 'both packed') {
        fx.git('repack', '-a', '-d', '-q');
        fx.git('prune-packed');
        expect(fx.git('count-objects', '-v')).toMatch(/^count: 0$/m);
      }
      if (state === 'packed and loose') {
        // The blob loose again, beside the pack that holds it: still one object.
        fs.mkdirSync(join(fx.repo, '.git/objects', blob.slice(0, 2)), { recursive: true });
        fs.writeFileSync(join(fx.repo, '.git/objects', blob.slice(0, 2), blob.slice(2)), looseBlob);
        expect(fx.git('count-objects', '-v')).toMatch(/^count: 1$/m);
      }
      expect(await isoGitAnswer(gitdir, short), state).toBe('ambiguous');
      expect(createObjectStore(gitdir).forCall(DEFAULT_OBJECT_LIMITS).startingWith(short, 2)?.sort(), state).toEqual([blob, head].sort());
      expect(storeAnswer(gitdir, longer), state).toBe(head);
      expect(storeAnswer(gitdir, blob.slice(0, longer.length)), state).toBe(await isoGitAnswer(gitdir, blob.slice(0, longer.length)));
      const repo = await openRepo(ctxFor(fx), fx.repo);
      await expect(resolveObject(repo, short, { shaFirst: true }), state).rejects.toThrow(`Ref '${short}' did not resolve to an object`);
      await expect(resolveObject(repo, short), state).rejects.toThrow(`Ref '${short}' did not resolve to an object`);
      expect(await resolveObject(repo, longer), state).toBe(head);
      expect(await resolveObject(repo, `${longer}~1`), state).toBe(fx.git('rev-parse', 'HEAD~1').trim());
    }
  });

  it.skipIf(!hasGit)('a prefix no object starts is not found; fewer than 4 digits are never an object id', async () => {
    using fx = gitRepo();
    fx.git('commit', '-q', '--allow-empty', '-m', 'second');
    const all = allOids(fx);
    const head = fx.git('rev-parse', 'HEAD').trim();
    const gitdir = join(fx.repo, '.git');
    const absent = ['0000', 'ffff', 'abcd', '1234', '9876'].find((p) => !all.some((o) => o.startsWith(p)))!;
    expect(await isoGitAnswer(gitdir, absent)).toBe('none');
    expect(storeAnswer(gitdir, absent)).toBe('none');
    const repo = await openRepo(ctxFor(fx), fx.repo);
    await expect(resolveObject(repo, absent)).rejects.toThrow(`Ref '${absent}' did not resolve to an object`);
    // Three digits: unique here, yet not an object id (git's minimum is 4).
    expect(all.filter((o) => o.startsWith(head.slice(0, 3)))).toEqual([head]);
    expect(createObjectStore(gitdir).forCall(DEFAULT_OBJECT_LIMITS).startingWith(head.slice(0, 3), 2)).toEqual([]);
    await expect(resolveObject(repo, head.slice(0, 3))).rejects.toThrow(`Ref '${head.slice(0, 3)}' did not resolve to an object`);
    expect(await resolveObject(repo, head.slice(0, 4))).toBe(head);
    expect(await resolveObject(repo, head.slice(0, 4).toUpperCase())).toBe(head);
  });

  it.skipIf(!hasGit)('git_show: a unique abbreviation shows the commit, an ambiguous one is the error an unknown name gets', async () => {
    const { fx, head, blob } = ambiguousRepo();
    using _fx = fx;
    fx.git('repack', '-a', '-d', '-q');
    await using pair = await connect({ repositories: [fx.path] });
    const show = (revision: string) => pair.client.callTool({ name: 'git_show', arguments: { repo_path: fx.repo, revision } });
    const full = await show(head);
    const unique = await show(uniquePrefix(head, [head, blob]));
    expect(unique.isError).toBeFalsy();
    expect(text(unique)).toBe(text(full));
    const ambiguous = await show(head.slice(0, 4));
    const unknown = await show('no-such-ref');
    expect(ambiguous.isError).toBe(true);
    expect(text(ambiguous)).toBe(text(unknown).replace('no-such-ref', head.slice(0, 4)));
  });
});
