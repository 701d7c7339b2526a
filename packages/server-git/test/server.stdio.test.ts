import { fileURLToPath } from 'node:url';
import { runBin, spawnStdio, spawnStdioV1 } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { expectServesReferenceTexts, gitEnv, gitRepo, text } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('mcp-server-git (built bin over stdio)', () => {
  it('serves the tools on a --repository, with the reference texts, to the v1 SDK client', async () => {
    using fx = gitRepo();
    await using proc = await spawnStdioV1(bin, { args: ['-r', fx.repo], env: gitEnv() });
    expect(proc.client.getServerVersion()).toMatchObject({ name: 'mcp-git' });
    await expectServesReferenceTexts(proc.client, fx.repo);
  });

  it('refuses a repository outside the allowed one', async () => {
    using allowed = gitRepo();
    using other = gitRepo();
    await using proc = await spawnStdio(bin, { args: ['--repository', allowed.repo], env: gitEnv() });
    const res = await proc.client.callTool({ name: 'git_status', arguments: { repo_path: other.repo } });
    expect(res.isError).toBe(true);
    expect(text(res)).toBe(`Repository path '${other.repo}' is outside the allowed root '${allowed.repo}'`);
  });

  it('offers git_init and the network tools only when asked', async () => {
    using fx = gitRepo();
    await using proc = await spawnStdio(bin, { args: ['-r', fx.path, '--allow-init', '--allow-remote'], env: gitEnv() });
    const names = (await proc.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['git_init', 'git_fetch', 'git_pull', 'git_push']));
  });

  it('rejects a --repository that does not exist with exit 2 and one line on stderr', async () => {
    const { code, stdout, stderr } = await runBin(bin, { args: ['--repository', '/nonexistent/mcpkit-repo'] });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe('mcp-server-git: --repository /nonexistent/mcpkit-repo: no such folder');
  });

  it('prints the version for --version and -V, as every bin does; -v is verbose (as in the reference)', async () => {
    for (const flag of ['--version', '-V']) {
      const { code, stdout } = await runBin(bin, { args: [flag] });
      expect(code).toBe(0);
      expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    }
    const help = await runBin(bin, { args: ['--help'] });
    expect(help.stdout).toMatch(/^ {2}-v, --verbose /m);
    expect(help.stdout).toMatch(/^ {2}-V, --version /m);
  });

  it('takes -v like the reference (info logs on stderr)', async () => {
    using fx = gitRepo();
    await using proc = await spawnStdio(bin, { args: ['-v', '-r', fx.repo], env: gitEnv() });
    await proc.client.ping();
    expect(proc.stderr()).toContain(`Using repository at ${fx.repo}`);
  });
});
