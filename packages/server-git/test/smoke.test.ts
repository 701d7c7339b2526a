import { describe, expect, it } from 'vitest';
import { connect, gitRepo, text } from './helpers.js';

describe('tools/list', () => {
  it('lists the reference tools first, in order, each with a title and all four hints', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const { tools } = await pair.client.listTools();
    expect(tools.slice(0, 12).map((t) => t.name)).toEqual([
      'git_status',
      'git_diff_unstaged',
      'git_diff_staged',
      'git_diff',
      'git_commit',
      'git_add',
      'git_reset',
      'git_log',
      'git_create_branch',
      'git_checkout',
      'git_show',
      'git_branch',
    ]);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(Object.keys(tool.annotations ?? {}).sort(), tool.name).toEqual(
        ['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title'].sort(),
      );
      expect((tool.inputSchema.required ?? [])[0], tool.name).toBe('repo_path');
    }
    expect(tools.map((t) => t.name)).not.toContain('git_init');
    expect(tools.map((t) => t.name)).not.toContain('git_push');
  });

  it('refuses every call when no repository and no client roots are allowed, saying how to allow one', async () => {
    using fx = gitRepo();
    await using pair = await connect();
    const res = await pair.client.callTool({ name: 'git_status', arguments: { repo_path: fx.repo } });
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(/--repository/);
  });
});

describe('library use', () => {
  it('createRemoteAccess (loaded on demand) gives createGitServer the network tools', async () => {
    const { createRemoteAccess } = await import('../src/server.js');
    const remote = await createRemoteAccess({}, {});
    try {
      await using pair = await connect({ repositories: ['/tmp'], remote });
      const names = (await pair.client.listTools()).tools.map((t) => t.name);
      expect(names.slice(-3)).toEqual(['git_fetch', 'git_pull', 'git_push']);
    } finally {
      await remote.close();
    }
  });
});
