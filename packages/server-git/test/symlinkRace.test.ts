/**
 * Issue 22, item 7: a folder swapped for a symlink to an outside folder *during* a call (`mv sub
 * sub.real; ln -s <outside> sub; …`). The check (the call's lstats) and the open are two moments: every
 * read and write of work-tree content must still never go through the link (workFile.ts), and a file
 * that vanishes between the two is deleted, as git says, not a failure.
 *
 * Deterministic: the server's test seam (`workTreeHooks.beforeOpen`) makes the swap happen exactly
 * between a path's check and its open. Then the same with a real loop in a child process swapping the
 * folder while N calls run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@mcpkit/protocol-core';
import { describe, expect, it } from 'vitest';
import type { WorkFileHooks } from '../src/engine/git/workFile.js';
import { connect, git, gitRepo, hasGit, type RepoFixture, type TempDir, tempDir, text, write } from './helpers.js';

const noGit = !hasGit && !process.env.CI;
const MARK = 'OUTSIDE-SECRET-MARK';
const SECRET = `${MARK} content\n`;

interface Race extends Disposable {
  fx: RepoFixture;
  outside: TempDir;
  /** `sub` becomes a link to the outside folder (the real folder kept as `sub.real`). */
  swapIn(): void;
  /** `sub` is the real folder again. */
  swapBack(): void;
  /** Every object in the repository's store, as text: outside content must never be written there. */
  objects(): string;
}

/** Files `sub/n<i>.txt` (beside `f.txt` and `g.txt`) the loop test changes, so each call opens many files after its one check of `sub`. */
const MANY = 30;
const many = (content: (i: number) => string) => Object.fromEntries(Array.from({ length: MANY }, (_, i) => [`n${i}.txt`, content(i)]));
const under = (dir: string, files: Record<string, string>) => Object.fromEntries(Object.entries(files).map(([n, c]) => [`${dir}/${n}`, c]));

/**
 * `sub/f.txt` and the `sub/n*.txt` committed and then changed (so a status and a diff read them); the
 * outside folder has files of the same names, and one whose name is the mark.
 */
function raceRepo(): Race {
  const fx = gitRepo();
  const outside = tempDir('mcpkit-outside-');
  write(fx.repo, under('sub', { 'f.txt': 'inside\n', 'g.txt': 'inside g\n', ...many((i) => `inside ${i}\n`) }));
  fx.git('add', '.');
  fx.git('commit', '-q', '-m', 'sub');
  write(fx.repo, under('sub', { 'f.txt': 'inside, changed\n', ...many((i) => `inside ${i}, changed\n`) }));
  write(outside.path, { 'f.txt': SECRET, 'g.txt': SECRET, [`${MARK}.txt`]: SECRET, ...many(() => SECRET) });
  const sub = join(fx.repo, 'sub');
  return {
    fx,
    outside,
    swapIn: () => {
      renameSync(sub, `${sub}.real`);
      symlinkSync(outside.path, sub);
    },
    swapBack: () => {
      if (lstatSync(sub, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(sub);
      if (existsSync(`${sub}.real`)) renameSync(`${sub}.real`, sub);
    },
    objects: () => git(fx.repo, ['cat-file', '--batch-all-objects', '--batch']),
    [Symbol.dispose]: () => {
      fx[Symbol.dispose]();
      outside[Symbol.dispose]();
    },
  };
}

/** A hook that swaps `sub` in once, right before `abs` is opened. */
function swapAt(abs: string, swap: () => void): WorkFileHooks & { fired: () => boolean } {
  let done = false;
  return {
    beforeOpen: (path) => {
      if (done || path !== abs) return;
      done = true;
      swap();
    },
    fired: () => done,
  };
}

const outsideFiles = (r: Race) =>
  Object.fromEntries(readdirSync(r.outside.path).map((n) => [n, readFileSync(join(r.outside.path, n), 'utf8')]));

describe('a folder swapped for a symlink between the check and the open', () => {
  it.skipIf(noGit)('git_diff_unstaged and git_status: the file reads as deleted, never through the link', async () => {
    using r = raceRepo();
    for (const tool of ['git_diff_unstaged', 'git_status'] as const) {
      const hook = swapAt(join(r.fx.repo, 'sub/f.txt'), r.swapIn);
      await using pair = await connect({ repositories: [r.fx.path], workTreeHooks: hook });
      const res = await pair.client.callTool({ name: tool, arguments: { repo_path: r.fx.repo } });
      expect(hook.fired()).toBe(true);
      expect(res.isError).toBeFalsy();
      expect(text(res)).not.toContain(MARK);
      if (tool === 'git_diff_unstaged') expect(text(res)).toContain('deleted file mode 100644');
      else expect(text(res)).toMatch(/deleted:\s+sub\/f\.txt/);
      r.swapBack();
    }
  });

  it.skipIf(noGit)('git_status: a folder swapped right before it is listed lists nothing of the outside', async () => {
    using r = raceRepo();
    const hook = swapAt(join(r.fx.repo, 'sub'), r.swapIn);
    await using pair = await connect({ repositories: [r.fx.path], workTreeHooks: hook });
    const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: r.fx.repo } });
    expect(hook.fired()).toBe(true);
    expect(res.isError).toBeFalsy();
    expect(text(res)).not.toContain(MARK);
  });

  it.skipIf(noGit)('git_add: nothing of the outside is staged or written to the object store', async () => {
    using r = raceRepo();
    const hook = swapAt(join(r.fx.repo, 'sub/f.txt'), r.swapIn);
    await using pair = await connect({ repositories: [r.fx.path], workTreeHooks: hook });
    const res = await pair.client.callTool({ name: 'git_add', arguments: { repo_path: r.fx.repo, files: ['sub/f.txt'] } });
    expect(hook.fired()).toBe(true);
    expect(res.isError).toBeFalsy();
    expect(text(res)).not.toContain(MARK);
    expect(r.objects()).not.toContain(MARK);
    r.swapBack();
    expect(r.fx.git('ls-files', '-s', 'sub')).not.toContain('sub/f.txt'); // its deletion was staged, as git add does
  });

  it.skipIf(noGit)('git_restore: the write is refused, nothing outside is written or replaced', async () => {
    using r = raceRepo();
    const before = outsideFiles(r);
    const hook = swapAt(join(r.fx.repo, 'sub'), r.swapIn);
    await using pair = await connect({ repositories: [r.fx.path], workTreeHooks: hook });
    const res = await pair.client.callTool({ name: 'git_restore', arguments: { repo_path: r.fx.repo, files: ['sub/f.txt'] } });
    expect(hook.fired()).toBe(true);
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(/beyond a symbolic link/);
    expect(outsideFiles(r)).toEqual(before);
  });

  it.skipIf(noGit)('a file that vanishes between its lstat and its read is deleted in git_status and git_diff_unstaged', async () => {
    using r = raceRepo();
    for (const tool of ['git_status', 'git_diff_unstaged'] as const) {
      const hook = swapAt(join(r.fx.repo, 'sub/f.txt'), () => renameSync(join(r.fx.repo, 'sub/f.txt'), join(r.fx.path, 'away.txt')));
      await using pair = await connect({ repositories: [r.fx.path], workTreeHooks: hook });
      const res = await pair.client.callTool({ name: tool, arguments: { repo_path: r.fx.repo } });
      expect(hook.fired()).toBe(true);
      expect(res.isError).toBeFalsy();
      expect(text(res)).toMatch(tool === 'git_status' ? /deleted:\s+sub\/f\.txt/ : /deleted file mode 100644/);
      renameSync(join(r.fx.path, 'away.txt'), join(r.fx.repo, 'sub/f.txt'));
    }
  });

  it.skipIf(noGit)('a link replaced by a folder between its lstat and its readlink is deleted, not a failure', async () => {
    using r = raceRepo();
    const link = join(r.fx.repo, 'sub/l');
    symlinkSync('f.txt', link);
    r.fx.git('add', 'sub/l');
    r.fx.git('commit', '-q', '-m', 'link');
    unlinkSync(link);
    symlinkSync('g.txt', link); // changed, so status and diff read its text
    for (const tool of ['git_diff_unstaged', 'git_status'] as const) {
      const hook = swapAt(link, () => {
        unlinkSync(link);
        mkdirSync(link);
      });
      await using pair = await connect({ repositories: [r.fx.path], workTreeHooks: hook });
      const res = await pair.client.callTool({ name: tool, arguments: { repo_path: r.fx.repo } });
      expect(hook.fired()).toBe(true);
      expect(res.isError, text(res)).toBeFalsy();
      expect(text(res)).toMatch(tool === 'git_status' ? /deleted:\s+sub\/l/ : /deleted file mode 120000/);
      rmdirSync(link);
      symlinkSync('g.txt', link);
    }
  });
});

/** A child process swapping `sub` between the real folder and a link to `outside` as fast as it can, until killed. */
function swapLoop(repo: string, outside: string): Promise<ChildProcess> {
  const script = `
    const fs = require('node:fs');
    const [sub, out] = process.argv.slice(1);
    const parent = process.ppid;
    process.stdout.write('ready\\n');
    for (let i = 0; ; i++) {
      if (i % 64 === 0 && process.ppid !== parent) process.exit(0); // never outlive the test run (a timed-out test skips its kill)
      try { fs.renameSync(sub, sub + '.real'); fs.symlinkSync(out, sub); fs.unlinkSync(sub); fs.renameSync(sub + '.real', sub); } catch {}
    }`;
  const child = spawn(process.execPath, ['-e', script, join(repo, 'sub'), outside], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', () => resolve(child));
  });
}

describe('a loop swapping a folder for a symlink while calls run', () => {
  it.skipIf(noGit)('180 calls: no answer holds outside content, none fails, nothing outside is staged', async () => {
    using r = raceRepo();
    const logged: string[] = []; // the server's error lines: a failure below says what went wrong, not just that it did
    const logger = createLogger({ name: 'git', level: 'error', write: (line) => logged.push(line) });
    await using pair = await connect({ repositories: [r.fx.path], logger });
    const child = await swapLoop(r.fx.repo, r.outside.path);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const failures: string[] = [];
    const leaks: string[] = [];
    try {
      const tools = ['git_diff_unstaged', 'git_status', 'git_add'] as const;
      for (let i = 0; i < 180; i++) {
        const name = tools[i % tools.length]!;
        const args = name === 'git_add' ? { repo_path: r.fx.repo, files: ['.'] } : { repo_path: r.fx.repo };
        try {
          const res = await pair.client.callTool({ name, arguments: args });
          if (text(res).includes(MARK)) leaks.push(`${name} #${i}`);
          if (res.isError && /unexpectedly/.test(text(res))) failures.push(`${name} #${i}: ${text(res)}`);
        } catch (error) {
          failures.push(`${name} #${i}: ${String(error)}`);
        }
      }
    } finally {
      child.kill();
      await exited;
      r.swapBack();
    }
    expect(leaks).toEqual([]);
    expect({ failures, logged }).toEqual({ failures: [], logged: [] });
    expect(r.objects()).not.toContain(MARK);
  });
});
