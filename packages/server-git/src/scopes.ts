import type { ServerApp } from '@mcpkit/protocol-core';

type ScopeDeclaration = NonNullable<ServerApp['scopes']>;

const READ = 'git:read';
const WRITE = 'git:write';
const REMOTE = 'git:remote';

/**
 * The OAuth scopes of git's tools (with `--oauth-issuer`): tools that only look need `git:read`, tools that change
 * a repository `git:write`, tools that talk to a remote `git:remote` (a pull also changes the work tree, so it needs
 * `git:write` too). A scope is per tool, not per argument: `git_tag` creates a tag when given a name, so it needs
 * `git:write` even to list. Resource reads and 2026 `subscriptions/listen` streams need `git:read` (git serves no
 * resources today; a stream would carry list changes). `--oauth-scope-map` renames them.
 */
export const GIT_SCOPES: ScopeDeclaration = {
  resources: READ,
  tools: {
    git_status: READ,
    git_diff_unstaged: READ,
    git_diff_staged: READ,
    git_diff: READ,
    git_log: READ,
    git_show: READ,
    git_blame: READ,
    git_branch: READ,
    git_remote: READ,
    git_stash_list: READ,
    git_add: WRITE,
    git_commit: WRITE,
    git_reset: WRITE,
    git_restore: WRITE,
    git_checkout: WRITE,
    git_create_branch: WRITE,
    git_merge: WRITE,
    git_stash: WRITE,
    git_tag: WRITE,
    git_init: WRITE,
    git_fetch: REMOTE,
    git_push: REMOTE,
    git_pull: [REMOTE, WRITE],
  },
};
