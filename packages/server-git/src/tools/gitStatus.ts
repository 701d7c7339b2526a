import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { formatStatus } from '../engine/format/status.js';
import type { StatusData } from '../engine/ops/status.js';
import { ANSWER_CAP, capText, fitItems } from '../limits.js';
import { openRepository, READ_ONLY, repoPath } from './common.js';

const change = z.object({
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted', 'typechange']),
});

const gitStatusInput = { repo_path: repoPath };

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
  handler: async (args, ctx: GitContext) => statusAnswer(await (await openRepository(ctx, args.repo_path)).status()),
});

/** git status's long format (the reference's text) and the lists, a huge change set capped with a notice. */
export function statusAnswer(data: StatusData) {
  const text = formatStatus(data);
  const up = data.upstream;
  // A huge change set is capped (text and each list), with a notice: narrow it with git_diff paths or git_add.
  const quarter = ANSWER_CAP / 4;
  const capped = capText(text, 'Too many changes to list: narrow them down with git_diff_* paths, or commit/stash part of them.');
  return structuredResult(
    {
      branch: data.branch,
      detached: data.detached,
      ...(up ? { upstream: up.name, ...(up.gone ? { upstream_gone: true } : { ahead: up.ahead, behind: up.behind }) } : {}),
      merging: data.merging,
      staged: fitItems(data.staged, quarter),
      unmerged: fitItems(data.unmerged, quarter),
      unstaged: fitItems(data.unstaged, quarter),
      untracked: fitItems(data.untracked, quarter),
    },
    // GitPython strips the one trailing newline of git's output.
    `Repository status:\n${capped.capped || !capped.text.endsWith('\n') ? capped.text : capped.text.slice(0, -1)}`,
  );
}
