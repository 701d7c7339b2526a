/**
 * The built bin over stdio with a small heap (--max-old-space-size=128): hostile repositories (a fan-out
 * claiming 2^32 objects, a delta on itself, a decompression bomb) answer isError and the process goes on
 * answering.
 */
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnStdio } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { gitEnv, hasGit, tempDir, text } from './helpers.js';
import { claimObjects, deflateSync, delta, dropLoose, packAll, twoCommits, writeLoose, writePack, zeros } from './hostileRepos.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const env = () => gitEnv({ NODE_OPTIONS: '--max-old-space-size=128' });

/** A folder holding three hostile repositories and a healthy one. */
function hostileFolder() {
  const dir = tempDir();
  const fanout = twoCommits();
  claimObjects(packAll(fanout));
  const cyclic = twoCommits();
  writePack(cyclic.gitdir, [{ oid: cyclic.head, kind: 7, size: 4, zlib: deflateSync(delta(10, 1)), base: cyclic.head }]);
  dropLoose(cyclic.gitdir, cyclic.head);
  const bomb = twoCommits();
  writeLoose(bomb.gitdir, bomb.blob, 'blob', 10, zeros(64 * 1024 * 1024));
  const healthy = twoCommits();
  const names = { fanout, cyclic, bomb, healthy };
  const repos: Record<string, string> = {};
  for (const [name, fx] of Object.entries(names)) {
    repos[name] = join(dir.path, name);
    renameSync(fx.repo, repos[name]);
    fx[Symbol.dispose]();
  }
  return { ...dir, repos: repos as Record<keyof typeof names, string>, heads: { cyclic: cyclic.head, bomb: bomb.blob } };
}

describe.skipIf(!hasGit)('hostile repositories (built bin over stdio, 128 MB heap)', () => {
  it('answers isError for each, and the next call still answers', async () => {
    using fx = hostileFolder();
    await using proc = await spawnStdio(bin, { args: ['-r', fx.path, '--no-warmup'], env: env() });
    const show = (repo: string) => proc.client.callTool({ name: 'git_show', arguments: { repo_path: repo, revision: 'HEAD' } });
    const fanout = await show(fx.repos.fanout);
    expect(fanout.isError).toBe(true);
    expect(text(fanout)).toMatch(/object store is damaged at objects\/pack\/pack-[0-9a-f]{40}\.idx: its fan-out claims 4294967295 objects/);
    const cyclic = await show(fx.repos.cyclic);
    expect(cyclic.isError).toBe(true);
    expect(text(cyclic)).toContain(`damaged at ${fx.heads.cyclic}`);
    const checkout = await proc.client.callTool({ name: 'git_checkout', arguments: { repo_path: fx.repos.cyclic, branch_name: 'master' } });
    expect(checkout.isError).toBe(true);
    const bomb = await show(fx.repos.bomb);
    expect(bomb.isError).toBe(true);
    expect(text(bomb)).toContain(`damaged at ${fx.heads.bomb}`);
    const healthy = await show(fx.repos.healthy);
    expect(healthy.isError).toBeFalsy();
    expect(text(healthy)).toContain('add big.txt');
  });
});
