import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { loadEngine, READ_ONLY, repoPath } from './common.js';

const change = z.object({
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted', 'typechange']),
});

export const gitStatusInput = { repo_path: repoPath };

export const gitStatus = defineTool({
  name: 'git_status',
  title: 'Show the working tree status',
  description: 'Shows the working tree status',
  input: gitStatusInput,
  output: {
    branch: z.string().nullable().describe('The current branch, null when HEAD is detached'),
    detached: z.boolean(),
    upstream: z.string().optional().describe('The upstream branch (branch.<name>.remote/merge), as git shows it'),
    upstream_gone: z.boolean().optional().describe('The upstream is configured but its ref no longer exists'),
    ahead: z.number().int().optional().describe('Commits on the branch and not on its upstream'),
    behind: z.number().int().optional().describe('Commits on the upstream and not on the branch'),
    merging: z.boolean().describe('A merge is in progress (MERGE_HEAD exists)'),
    staged: z.array(change).describe('Changes to be committed (index vs HEAD); renames show as deleted + added'),
    unmerged: z.array(z.object({ path: z.string(), status: z.string() })).describe('Paths with conflicts'),
    unstaged: z.array(change).describe('Changes not staged for commit (work tree vs index)'),
    untracked: z.array(z.string()).describe('Untracked files, a wholly untracked folder as `dir/` (git status -unormal)'),
  },
  annotations: READ_ONLY,
  handler: async (args, ctx: GitContext) => (await loadEngine()).status(args, ctx),
});
