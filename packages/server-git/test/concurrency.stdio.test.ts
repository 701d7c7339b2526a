/**
 * Two server processes (the built bin over stdio) writing one repository at once: their calls take
 * index.lock and the ref locks from each other as two git processes would, so git ls-files and
 * git log see every staged file and every commit, and git fsck is clean. And `--repository .` started
 * in a subfolder of a repository serves the repository's top (issue item 16).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { gitEnv, gitRepo, text, write } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}.txt`);

describe('two server processes on one repository', () => {
  it('2 processes × 20 concurrent git_add: git ls-files lists all 40; then 2 × 15 git_add + git_commit: all committed', async () => {
    using fx = gitRepo();
    const staged = [...names('a', 20), ...names('b', 20)];
    const committed = [...names('c', 15), ...names('d', 15)];
    write(fx.repo, Object.fromEntries([...staged, ...committed].map((f) => [f, `${f}\n`])));
    const args = ['-r', fx.repo, '--no-warmup'];
    await using one = await spawnStdio(bin, { args, env: gitEnv() });
    await using two = await spawnStdio(bin, { args, env: gitEnv() });
    const adds = await Promise.all(
      staged.map((f, i) => (i < 20 ? one : two).client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: [f] } })),
    );
    for (const r of adds) expect(text(r)).toBe('Files staged successfully');
    expect(fx.git('ls-files').trim().split('\n').sort()).toEqual([...staged, 'test.txt'].sort());

    const results = await Promise.all(
      committed.map(async (f, i) => {
        const { client } = i < 15 ? one : two;
        const added = await client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: [f] } });
        const done = await client.callTool({ name: 'git_commit', arguments: { repo_path: fx.repo, message: `add ${f}` } });
        return [text(added), done.isError ?? false];
      }),
    );
    for (const r of results) expect(r).toEqual(['Files staged successfully', false]);
    const all = [...staged, ...committed, 'test.txt'].sort();
    expect(fx.git('ls-tree', '-r', '--name-only', 'HEAD').trim().split('\n').sort()).toEqual(all);
    expect(fx.git('rev-list', '--count', 'HEAD').trim()).toBe('31');
    expect(fx.git('status', '--porcelain')).toBe('');
    fx.git('fsck', '--full', '--no-progress');
  });

  it('--repository . started in a subfolder serves the repository top, says so on stderr, and its calls work', async () => {
    using fx = gitRepo();
    const sub = join(fx.repo, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    write(fx.repo, { 'src/deep/new.txt': 'new\n' });
    await using proc = await spawnStdio(bin, { args: ['--repository', '.', '--no-warmup'], env: gitEnv(), cwd: sub });
    await proc.client.ping();
    expect(proc.stderr()).toContain(`--repository . is inside the repository at ${fx.repo}; serving ${fx.repo}`);
    const added = await proc.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: ['src/deep/new.txt'] } });
    expect(text(added)).toBe('Files staged successfully');
    const status = await proc.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
    expect(text(status)).toContain('new file:   src/deep/new.txt');
    expect(fx.git('ls-files')).toBe('src/deep/new.txt\ntest.txt\n');
  });
});
