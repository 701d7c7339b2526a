import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type StdioProcess, spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it, vi } from 'vitest';
import { git, gitEnv, hasGit, tempDir, text, write } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** Waits until the server's stderr matches `pattern` (pinging on each look, so a dead server fails the test). */
async function stderrMatch(proc: StdioProcess, pattern: RegExp, what: string): Promise<string> {
  return vi.waitFor(
    async () => {
      await proc.client.ping();
      const m = pattern.exec(proc.stderr());
      if (!m) throw new Error(`no ${what} on stderr:\n${proc.stderr()}`);
      return m[0];
    },
    { timeout: 30_000, interval: 20 },
  );
}

/** Every file under `dir` with its size and mtime: what a reader must leave as it was. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const ent of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = join(ent.parentPath, ent.name);
    const st = statSync(file);
    out[relative(dir, file)] = ent.isDirectory() ? `dir ${st.mtimeMs}` : `${st.size} ${st.mtimeMs}`;
  }
  return out;
}

/** A folder of three repositories, each with history, a staged, a modified and an untracked file. */
function repositories() {
  const dir = tempDir();
  const repos = ['alpha', 'beta', 'gamma'].map((name) => join(dir.path, name));
  for (const repo of repos) {
    git(dir.path, ['init', '-q', '-b', 'main', repo]);
    for (let i = 0; i < 5; i++) {
      write(repo, { [`src/f${i}.txt`]: `file ${i}\n`.repeat(50 + i), 'README.md': `revision ${i}\n` });
      git(repo, ['add', '-A']);
      git(repo, ['commit', '-q', '-m', `commit ${i}`]);
    }
    write(repo, { 'src/f0.txt': 'changed\n', 'new/untracked.txt': 'u\n', 'staged.txt': 's\n' });
    git(repo, ['add', 'staged.txt']);
  }
  return { ...dir, repos };
}

const CALLS = (repo: string) => [
  { name: 'git_status', arguments: { repo_path: repo } },
  { name: 'git_log', arguments: { repo_path: repo, max_count: 3 } },
  { name: 'git_branch', arguments: { repo_path: repo, branch_type: 'local' } },
  { name: 'git_diff_unstaged', arguments: { repo_path: repo } },
];

/** The answers of a server started with --no-warmup: what every warmed server must answer too. */
async function coldAnswers(root: string, repo: string): Promise<unknown[]> {
  await using proc = await spawnStdio(bin, { args: ['-r', root, '--no-warmup'], env: gitEnv() });
  const out: unknown[] = [];
  for (const call of CALLS(repo)) out.push(await proc.client.callTool(call));
  return out;
}

describe.skipIf(!hasGit)('deferred engine load and read-ahead (built bin over stdio)', () => {
  it('loads the engine once the opening is answered, reads each repository ahead, writes nothing, changes no answer', async () => {
    using fx = repositories();
    const expected = await coldAnswers(fx.path, fx.repos[1]!);
    const before = snapshot(fx.path);
    await using proc = await spawnStdio(bin, { args: ['-r', fx.path, '--log-level', 'debug'], env: gitEnv() });
    await proc.client.listTools();
    await stderrMatch(proc, /warm-up: engine loaded in \d+ ms/, 'the engine loaded');
    for (const repo of fx.repos)
      await stderrMatch(proc, new RegExp(`warm-up: read ${repo} ahead \\(git_status, [^)]*\\) in \\d+ ms`), `${repo} read ahead`);
    expect(proc.stderr()).not.toMatch(/engine load failed|not read ahead/);
    expect(snapshot(fx.path)).toEqual(before);
    const answers: unknown[] = [];
    for (const call of CALLS(fx.repos[1]!)) answers.push(await proc.client.callTool(call));
    expect(answers).toEqual(expected);
    expect(text(answers[0])).toContain('Changes to be committed');
  });

  it('a call that comes before the engine has loaded gets the same answer', async () => {
    using fx = repositories();
    const expected = await coldAnswers(fx.path, fx.repos[2]!);
    await using proc = await spawnStdio(bin, { args: ['-r', fx.path, '--log-level', 'debug'], env: gitEnv() });
    const answers: unknown[] = [];
    for (const call of CALLS(fx.repos[2]!)) answers.push(await proc.client.callTool(call));
    expect(answers).toEqual(expected);
    await stderrMatch(proc, /warm-up: engine loaded in \d+ ms/, 'the engine loaded');
  });

  it('is off with --no-warmup and with GIT_NO_WARMUP: the engine loads on the first call', async () => {
    using fx = repositories();
    for (const spawn of [
      { args: ['-r', fx.path, '--log-level', 'debug', '--no-warmup'], env: gitEnv() },
      { args: ['-r', fx.path, '--log-level', 'debug'], env: gitEnv({ GIT_NO_WARMUP: '1' }) },
    ]) {
      await using proc = await spawnStdio(bin, spawn);
      await proc.client.listTools();
      await stderrMatch(proc, /warm-up: off \(--no-warmup\)/, 'the warm-up being off');
      const res = await proc.client.callTool(CALLS(fx.repos[0]!)[0]!);
      expect(text(res)).toMatch(/^Repository status:\nOn branch main\n/);
      expect(proc.stderr()).not.toContain('warm-up: engine loaded');
    }
  });
});
