/**
 * The confined fs that isomorphic-git gets, with the call's WorkTree: git's symlink rules at the fs
 * level, whatever isomorphic-git (or this server's code) asks for. `sub` is a symlink to a folder
 * outside the repository; nothing may be read, listed, written or removed through it.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createConfinedFs } from '../src/engine/git/confinedFs.js';
import { createWorkTree } from '../src/engine/git/workTree.js';
import { tempDir, write } from './helpers.js';

const SECRET = 'SECRET\n';

function setup() {
  const root = tempDir();
  const outside = tempDir('mcpkit-outside-');
  const dir = join(root.path, 'repo');
  const gitdir = join(dir, '.git');
  mkdirSync(gitdir, { recursive: true });
  write(dir, { 'real/f.txt': 'inside\n', 'target.txt': 'inside target\n' });
  write(outside.path, { 'f.txt': SECRET, 'deep/g.txt': SECRET });
  symlinkSync(outside.path, join(dir, 'sub'));
  symlinkSync(join(outside.path, 'f.txt'), join(dir, 'file-link'));
  symlinkSync('loop', join(dir, 'loop'));
  const work = createWorkTree(dir);
  const fs = createConfinedFs([dir, gitdir], { tree: work, gitdir }).promises;
  return {
    dir,
    outside: outside.path,
    work,
    fs,
    [Symbol.dispose]: () => {
      root[Symbol.dispose]();
      outside[Symbol.dispose]();
    },
  };
}

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: NodeJS.ErrnoException) => e.code,
  );

describe('the confined fs in a work tree with symlinks', () => {
  it('reads: a path behind a symlinked folder is absent; a link is never listed or read through', async () => {
    using s = setup();
    expect(await code(s.fs.lstat(join(s.dir, 'sub/f.txt')))).toBe('ENOENT');
    expect(await code(s.fs.stat(join(s.dir, 'sub/f.txt')))).toBe('ENOENT');
    expect(await code(s.fs.readFile(join(s.dir, 'sub/f.txt')))).toBe('ENOENT');
    expect(await code(s.fs.readFile(join(s.dir, 'sub/deep/g.txt')))).toBe('ENOENT');
    expect(await code(s.fs.readlink(join(s.dir, 'sub/f.txt')))).toBe('ENOENT');
    expect(await code(s.fs.readdir(join(s.dir, 'sub')))).toBe('ENOTDIR');
    expect(await code(s.fs.readdir(join(s.dir, 'sub/deep')))).toBe('ENOTDIR');
    expect(await code(s.fs.lstat(join(s.dir, 'loop/x')))).toBe('ENOENT');
    // The last component: a link is an entry (lstat, readlink), never read through.
    expect((await s.fs.lstat(join(s.dir, 'sub'))).isSymbolicLink()).toBe(true);
    expect(String(await s.fs.readlink(join(s.dir, 'file-link')))).toBe(join(s.outside, 'f.txt'));
    expect(await code(s.fs.readFile(join(s.dir, 'file-link')))).toBe('ENOENT');
    expect(await s.fs.readFile(join(s.dir, 'real/f.txt'), 'utf8')).toBe('inside\n');
    expect(await s.fs.readdir(join(s.dir, 'real'))).toEqual(['f.txt']);
  });

  it('writes behind a symlinked folder are refused, removals do nothing there', async () => {
    using s = setup();
    expect(await code(s.fs.writeFile(join(s.dir, 'sub/f.txt'), 'x'))).toBe('EACCES');
    expect(await code(s.fs.writeFile(join(s.dir, 'sub/new.txt'), 'x'))).toBe('EACCES');
    expect(await code(s.fs.mkdir(join(s.dir, 'sub/d')))).toBe('EACCES');
    expect(await code(s.fs.mkdir(join(s.dir, 'sub/d/e'), { recursive: true }))).toBe('EACCES');
    expect(await code(s.fs.symlink('x', join(s.dir, 'sub/l')))).toBe('EACCES');
    expect(await code(s.fs.rename(join(s.dir, 'target.txt'), join(s.dir, 'sub/t.txt')))).toBe('EACCES');
    expect(await code(s.fs.chmod(join(s.dir, 'sub/f.txt'), 0o755))).toBe('EACCES');
    expect(await code(s.fs.unlink(join(s.dir, 'sub/f.txt')))).toBe('ENOENT');
    expect(await code(s.fs.rm(join(s.dir, 'sub/f.txt'), { force: true }))).toBe('ok');
    expect(await code(s.fs.rm(join(s.dir, 'sub/deep'), { recursive: true, force: true }))).toBe('ok');
    expect(await code(s.fs.rmdir(join(s.dir, 'sub/deep')))).toBe('ENOENT');
    expect(readFileSync(join(s.outside, 'f.txt'), 'utf8')).toBe(SECRET);
    expect(readFileSync(join(s.outside, 'deep/g.txt'), 'utf8')).toBe(SECRET);
    expect(existsSync(join(s.outside, 'new.txt'))).toBe(false);
    expect(lstatSync(join(s.outside, 'f.txt')).mode & 0o111).toBe(0);
  });

  it('a write over a symlink replaces the link; a folder made where a link was is used', async () => {
    using s = setup();
    await s.fs.writeFile(join(s.dir, 'file-link'), 'checked out\n');
    expect(lstatSync(join(s.dir, 'file-link')).isFile()).toBe(true);
    expect(readFileSync(join(s.outside, 'f.txt'), 'utf8')).toBe(SECRET);
    // The link's kind was cached by the refusals above; removing it and making a folder forgets it.
    expect(await code(s.fs.writeFile(join(s.dir, 'sub/f.txt'), 'x'))).toBe('EACCES');
    await s.fs.unlink(join(s.dir, 'sub'));
    await s.fs.mkdir(join(s.dir, 'sub'));
    await s.fs.writeFile(join(s.dir, 'sub/f.txt'), 'now inside\n');
    expect(readFileSync(join(s.dir, 'sub/f.txt'), 'utf8')).toBe('now inside\n');
    expect(readFileSync(join(s.outside, 'f.txt'), 'utf8')).toBe(SECRET);
    // And the other way round: a folder replaced by a link through the fs is seen as a link at once.
    expect(s.work.beyondLink('real/f.txt')).toBe(false);
    await s.fs.rm(join(s.dir, 'real'), { recursive: true });
    await s.fs.symlink(s.outside, join(s.dir, 'real'));
    expect(await code(s.fs.readFile(join(s.dir, 'real/f.txt')))).toBe('ENOENT');
    expect(readlinkSync(join(s.dir, 'real'))).toBe(s.outside);
  });

  it('the git directory is not subject to the work-tree rules, and outside paths are still refused', async () => {
    using s = setup();
    await s.fs.writeFile(join(s.dir, '.git/HEAD'), 'ref: refs/heads/master\n');
    expect(await s.fs.readFile(join(s.dir, '.git/HEAD'), 'utf8')).toBe('ref: refs/heads/master\n');
    expect(await code(s.fs.readFile(join(s.outside, 'f.txt')))).toBe('EACCES');
    unlinkSync(join(s.dir, 'sub'));
    expect(await code(s.fs.lstat(join(s.dir, 'sub/f.txt')))).toBe('ENOENT');
  });
});

describe('the confined fs when a folder is swapped for a link between the check and the open', () => {
  /** `real/` is checked (cached as a folder), then swapped for a link to the outside folder right before each open under it. */
  function swapping() {
    const s = setup();
    const real = join(s.dir, 'real');
    const swap = () => {
      renameSync(real, `${real}.moved`);
      symlinkSync(s.outside, real);
    };
    const back = () => {
      unlinkSync(real);
      renameSync(`${real}.moved`, real);
    };
    let armed = false;
    const work = createWorkTree(s.dir, undefined, {
      beforeOpen: (abs) => {
        if (!armed || (abs !== real && !abs.startsWith(`${real}/`))) return;
        armed = false;
        swap();
      },
    });
    const fs = createConfinedFs([s.dir, join(s.dir, '.git')], { tree: work, gitdir: join(s.dir, '.git') }).promises;
    /** Runs `op` with `real/` checked as a folder first and swapped for the link at its open; then puts `real/` back. */
    const raced = async (op: () => Promise<unknown>) => {
      expect(work.beyondLink('real/f.txt')).toBe(false);
      armed = true;
      const result = await code(op());
      expect(armed).toBe(false);
      back();
      return result;
    };
    return { ...s, work, fs, raced };
  }

  it('reads and listings through the swapped-in link are absent', async () => {
    using s = swapping();
    expect(await s.raced(() => s.fs.readFile(join(s.dir, 'real/f.txt')))).toBe('ENOENT');
    expect(await s.raced(() => s.fs.readdir(join(s.dir, 'real')))).toBe('ENOTDIR');
    expect(await s.raced(() => s.fs.readlink(join(s.dir, 'real/f.txt')))).toBe('ENOENT');
  });

  it('writes and removals through the swapped-in link are refused, and nothing outside changes', async () => {
    using s = swapping();
    expect(await s.raced(() => s.fs.writeFile(join(s.dir, 'real/f.txt'), 'x'))).toBe('EACCES');
    expect(await s.raced(() => s.fs.writeFile(join(s.dir, 'real/new.txt'), 'x'))).toBe('EACCES');
    expect(await s.raced(() => s.fs.mkdir(join(s.dir, 'real/d')))).toBe('EACCES');
    expect(await s.raced(() => s.fs.symlink('x', join(s.dir, 'real/l')))).toBe('EACCES');
    expect(await s.raced(() => s.fs.chmod(join(s.dir, 'real/f.txt'), 0o755))).toBe('EACCES');
    expect(await s.raced(() => s.fs.unlink(join(s.dir, 'real/f.txt')))).toBe('EACCES');
    expect(await s.raced(() => s.fs.rename(join(s.dir, 'target.txt'), join(s.dir, 'real/f.txt')))).toBe('EACCES');
    expect(await s.raced(() => s.fs.rm(join(s.dir, 'real/f.txt'), { force: true }))).toBe('ok');
    expect(readdirSync(s.outside).sort()).toEqual(['deep', 'f.txt']);
    expect(readFileSync(join(s.outside, 'f.txt'), 'utf8')).toBe(SECRET);
    expect(lstatSync(join(s.outside, 'f.txt')).mode & 0o111).toBe(0);
    expect(readFileSync(join(s.dir, 'real/f.txt'), 'utf8')).toBe('inside\n');
  });

  it('a write replaces a file or a link in place with a whole new file, and leaves no temp file', async () => {
    using s = setup();
    await s.fs.writeFile(join(s.dir, 'real/f.txt'), 'new content\n', { mode: 0o755 } as never);
    await s.fs.writeFile(join(s.dir, 'file-link'), 'was a link\n');
    expect(readFileSync(join(s.dir, 'real/f.txt'), 'utf8')).toBe('new content\n');
    expect(lstatSync(join(s.dir, 'real/f.txt')).mode & 0o100).toBe(0o100);
    expect(lstatSync(join(s.dir, 'file-link')).isFile()).toBe(true);
    expect(readdirSync(join(s.dir, 'real'))).toEqual(['f.txt']);
    expect(readFileSync(join(s.outside, 'f.txt'), 'utf8')).toBe(SECRET);
  });
});

describe('the confined fs when a folder on the way is a file', () => {
  it('a write under a file fails as the OS says (ENOTDIR), not as a link refusal', async () => {
    using s = setup();
    expect(await code(s.fs.writeFile(join(s.dir, 'target.txt/x'), 'x'))).toBe('ENOTDIR');
    expect(await code(s.fs.mkdir(join(s.dir, 'target.txt/d')))).toBe('ENOTDIR');
  });
});
