/**
 * The read-ahead (src/readAhead.ts) in-process: which work trees it reads (a repository, or the first
 * READ_AHEAD_MAX of a folder of them, never through a link), what it skips and says, and that the warm-up
 * runs once per process (src/preload.ts).
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@mcpkit/protocol-core';
import { describe, expect, it } from 'vitest';
import { openRepository } from '../src/engine/index.js';
import { fixedRoots } from '../src/engine/roots.js';
import { createGitContext } from '../src/gitContext.js';
import { createEnginePreload } from '../src/preload.js';
import { READ_AHEAD_MAX, readAhead, SHOW_AHEAD_WITHIN } from '../src/readAhead.js';
import { createRepoCache } from '../src/server.js';
import { git, gitEnv, hasGit, tempDir, write } from './helpers.js';

const noGit = !hasGit && !process.env.CI;

function repoAt(dir: string, commits = 1): void {
  git(dir, ['init', '-q', '-b', 'main', '.']);
  for (let i = 0; i < commits; i++) {
    write(dir, { 'a.txt': `line ${i}\n` });
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', `c${i}`], gitEnv());
  }
}

async function run(roots: string[]) {
  const lines: string[] = [];
  const logger = createLogger({ name: 'git', level: 'debug', write: (line) => lines.push(line) });
  const repoCache = createRepoCache();
  const ctx = createGitContext({ repoCache, logger, env: gitEnv() }, fixedRoots(roots));
  await readAhead({ openRepository }, ctx, logger);
  await repoCache.close();
  // Every answer the read-ahead builds fits its tool's output schema (the same check a call gets).
  expect(lines.filter((l) => l.includes('does not fit'))).toEqual([]);
  return {
    read: lines.flatMap((l) => /read (\S+) ahead \([^)]*\) in \d+ ms/.exec(l)?.[1] ?? []),
    steps: lines.flatMap((l) => /read \S+ ahead \(([^)]*)\)/.exec(l)?.[1] ?? []),
    lines,
  };
}

describe.skipIf(noGit)('read-ahead', () => {
  it('reads a repository given itself: status, log, branches, unstaged patch and a small HEAD', async () => {
    using dir = tempDir();
    repoAt(dir.path, 3);
    const { read, steps } = await run([dir.path]);
    expect(read).toEqual([dir.path]);
    expect(steps).toEqual(['git_status, git_log, git_branch, git_diff_unstaged, git_show']);
  });

  it(`leaves out HEAD's commit when it changes more than ${SHOW_AHEAD_WITHIN.files} files, saying so, and reads the rest`, async () => {
    using dir = tempDir();
    git(dir.path, ['init', '-q', '-b', 'main', '.']);
    write(dir.path, Object.fromEntries(Array.from({ length: SHOW_AHEAD_WITHIN.files + 1 }, (_, i) => [`f${i}.txt`, `${i}\n`])));
    git(dir.path, ['add', '-A']);
    git(dir.path, ['commit', '-q', '-m', 'many files'], gitEnv());
    const { read, steps, lines } = await run([dir.path]);
    expect(read).toEqual([dir.path]);
    expect(steps).toEqual(['git_status, git_log, git_branch, git_diff_unstaged']);
    expect(
      lines.some(
        (l) =>
          l.includes(`warm-up: ${dir.path}: git_show not read ahead: commit `) &&
          l.includes(`changes more than ${SHOW_AHEAD_WITHIN.files} files`),
      ),
    ).toBe(true);
  });

  it(`reads the first ${READ_AHEAD_MAX} work trees of a folder by name, not its other folders nor a link to a repository`, async () => {
    using dir = tempDir();
    using outside = tempDir();
    repoAt(outside.path);
    const names = Array.from({ length: READ_AHEAD_MAX + 2 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    for (const name of names) {
      mkdirSync(join(dir.path, name));
      repoAt(join(dir.path, name));
    }
    mkdirSync(join(dir.path, 'plain'));
    symlinkSync(outside.path, join(dir.path, 'a-link'));
    const { read } = await run([dir.path]);
    expect(read).toEqual(names.slice(0, READ_AHEAD_MAX).map((name) => join(dir.path, name)));
  });

  it('skips a repository it cannot read, saying why at debug level, and goes on', async () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, 'a-empty'));
    git(join(dir.path, 'a-empty'), ['init', '-q', '-b', 'main', '.']);
    mkdirSync(join(dir.path, 'b-full'));
    repoAt(join(dir.path, 'b-full'));
    const { read, lines } = await run([dir.path]);
    expect(read).toEqual([join(dir.path, 'b-full')]);
    expect(lines.some((l) => l.includes(`warm-up: ${join(dir.path, 'a-empty')} not read ahead:`))).toBe(true);
  });
});

describe('warm-up', () => {
  it('loads the engine and reads ahead once per process, after the current turn', async () => {
    const logger = createLogger({ name: 'git', level: 'error', write: () => {} });
    let loads = 0;
    let reads = 0;
    const engine = { openRepository };
    const preload = createEnginePreload(logger, {
      load: async () => {
        loads++;
        return engine;
      },
      readAhead: async (given) => {
        expect(given).toBe(engine);
        reads++;
      },
    });
    preload.sessionOpened();
    preload.sessionOpened();
    expect(loads).toBe(0);
    await new Promise<void>((resolve) => setImmediate(resolve));
    await expect.poll(() => reads).toBe(1);
    preload.sessionOpened();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect([loads, reads]).toEqual([1, 1]);
  });
});
