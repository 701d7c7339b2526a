import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callTool, defineStop } from '../stop.js';

/**
 * git on a temp folder: the repository is made by the server itself (git_init, allowed inside the root
 * only), so the tour needs no git binary. Identity and dates come from the environment, as for the CLI.
 */
export const git = defineStop({
  title: 'git: a repository, confined to the folder it was given',
  pkg: '@mcpkit/server-git',
  async prepare() {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'mcpkit-tour-git-')));
    return {
      args: ['--repository', root, '--allow-init'],
      env: {
        GIT_AUTHOR_NAME: 'Ada Lovelace',
        GIT_AUTHOR_EMAIL: 'ada@example.com',
        GIT_COMMITTER_NAME: 'Ada Lovelace',
        GIT_COMMITTER_EMAIL: 'ada@example.com',
        GIT_AUTHOR_DATE: '2024-01-15T14:30:25+01:00',
        GIT_COMMITTER_DATE: '2024-01-15T14:30:25+01:00',
      },
      cleanup: () => rm(root, { recursive: true, force: true }),
      state: { root, repo: join(root, 'notes') },
    };
  },
  async visit(client, t, { repo }) {
    await callTool(client, t, 'git_init', { repo_path: repo, initial_branch: 'main' });
    await writeFile(join(repo, 'README.md'), '# Notes\n\nKeeper logs, 1840-1860.\n');
    await writeFile(join(repo, 'logs.txt'), '1843-11-02 NW 7, heavy sea\n');
    await callTool(client, t, 'git_status', { repo_path: repo });
    await callTool(client, t, 'git_add', { repo_path: repo, files: ['.'] });
    await callTool(client, t, 'git_commit', { repo_path: repo, message: 'Start the notes' });
    await writeFile(join(repo, 'logs.txt'), '1843-11-02 NW 7, heavy sea\n1843-11-03 W 4, fair\n');
    t.note('Diffs are what `git diff` prints, line for line:');
    await callTool(client, t, 'git_diff_unstaged', { repo_path: repo });
    await callTool(client, t, 'git_create_branch', { repo_path: repo, branch_name: 'november' });
    await callTool(client, t, 'git_checkout', { repo_path: repo, branch_name: 'november' });
    await callTool(client, t, 'git_add', { repo_path: repo, files: ['logs.txt'] });
    await callTool(client, t, 'git_commit', { repo_path: repo, message: 'Log 3 November' });
    await callTool(client, t, 'git_log', { repo_path: repo, max_count: 2 });
    await callTool(client, t, 'git_branch', { repo_path: repo, branch_type: 'local' });
    t.note('Nothing outside the allowed folder is reachable, whatever the spelling:');
    await callTool(client, t, 'git_status', { repo_path: join(repo, '..', '..') });
    await callTool(client, t, 'git_add', { repo_path: repo, files: ['../../etc/passwd'] });
    await callTool(client, t, 'git_diff', { repo_path: repo, target: '--output=/tmp/evil' });
  },
});
