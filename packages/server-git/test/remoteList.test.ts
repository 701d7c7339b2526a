import { describe, expect, it } from 'vitest';
import { redactUrl } from '../src/engine/ops/remotes.js';
import { connect, gitRepo, hasGit, text } from './helpers.js';

describe('git_remote', () => {
  it.skipIf(!hasGit)('prints what git remote -v prints (sorted by name)', async () => {
    using fx = gitRepo();
    fx.git('remote', 'add', 'origin', 'https://example.com/a.git');
    fx.git('remote', 'add', 'backup', '/srv/git/a.git');
    fx.git('config', '--add', 'remote.backup.pushurl', 'ssh://git@example.com/a.git');
    fx.git('config', '--add', 'remote.backup.pushurl', 'https://mirror.example.com/a.git');
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_remote', arguments: { repo_path: fx.repo } });
    expect(res.isError).toBeFalsy();
    expect(text(res)).toBe(fx.git('remote', '-v').replace(/\n$/, ''));
    const data = res.structuredContent as { remotes: { name: string; push_urls: string[] }[] };
    expect(data.remotes.map((r) => r.name)).toEqual(['backup', 'origin']);
    expect(data.remotes[0]!.push_urls).toHaveLength(2);
  });

  it('never prints credentials embedded in URLs', async () => {
    using fx = gitRepo();
    fx.git('remote', 'add', 'origin', 'https://alice:s3cr3t-token@example.com/a.git');
    fx.git('config', 'remote.origin.pushurl', 'https://ghp_abcdef@github.com/o/r.git');
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_remote', arguments: { repo_path: fx.repo } });
    const all = JSON.stringify(res);
    expect(all).not.toContain('s3cr3t');
    expect(all).not.toContain('ghp_abcdef');
    expect(all).not.toContain('alice');
    expect(text(res)).toBe('origin\thttps://***@example.com/a.git (fetch)\norigin\thttps://***@github.com/o/r.git (push)');
  });

  it('lists nothing without remotes', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_remote', arguments: { repo_path: fx.repo } });
    expect(text(res)).toBe('');
    expect(res.structuredContent).toEqual({ remotes: [] });
  });

  it('redacts user info but leaves scp-like and local URLs alone', () => {
    expect(redactUrl('https://u:p@h/x')).toBe('https://***@h/x');
    expect(redactUrl('ssh://git@h:22/x')).toBe('ssh://git@h:22/x');
    expect(redactUrl('ssh://git:pw@h/x')).toBe('ssh://***@h/x');
    expect(redactUrl('https://token@h/x')).toBe('https://***@h/x');
    expect(redactUrl('git@github.com:o/r.git')).toBe('git@github.com:o/r.git');
    expect(redactUrl('/srv/a@b/x')).toBe('/srv/a@b/x');
    expect(redactUrl('https://h/path@x')).toBe('https://h/path@x');
  });
});
