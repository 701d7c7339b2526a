import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import type { BranchEntry } from '../engine/refs/branches.js';
import { ANSWER_CAP, capText, fitItems } from '../limits.js';
import { openRepository, READ_ONLY } from './common.js';

const gitBranchInput = {
  repo_path: z.string().meta({ title: 'Repo Path' }).describe('The path to the Git repository.'),
  branch_type: z
    .string()
    .meta({ title: 'Branch Type' })
    .describe("Whether to list local branches ('local'), remote branches ('remote') or all branches('all')."),
  contains: z
    .string()
    .nullable()
    .default(null)
    .meta({ title: 'Contains' })
    .describe('The commit sha that branch should contain. Do not pass anything to this param if no commit sha is specified'),
  not_contains: z
    .string()
    .nullable()
    .default(null)
    .meta({ title: 'Not Contains' })
    .describe('The commit sha that branch should NOT contain. Do not pass anything to this param if no commit sha is specified'),
};

export const gitBranch = defineTool({
  name: 'git_branch',
  title: 'List branches',
  description: 'List Git branches',
  input: gitBranchInput,
  output: {
    branches: z
      .array(
        z.object({
          name: z.string().describe('As git branch prints it (origin/main with remote, remotes/origin/main with all)'),
          current: z.boolean(),
          remote: z.boolean(),
          commit: z.string().describe('Commit at the tip'),
        }),
      )
      .describe('The listed branches, in git branch order'),
  },
  annotations: READ_ONLY,
  handler: async ({ repo_path, ...options }, ctx: GitContext) => {
    const branches = await (await openRepository(ctx, repo_path)).branches(options);
    if (branches === null) return structuredResult({ branches: [] }, `Invalid branch type: ${options.branch_type}`);
    return branchAnswer(branches);
  },
});

/** `git branch` text for entries, without the final newline. */
function branchText(branches: readonly BranchEntry[]): string {
  return branches.map((b) => `${b.current ? '* ' : '  '}${b.name}${b.target ? ` -> ${b.target}` : ''}`).join('\n');
}

/** The answer for branches as the engine lists them (the read-ahead builds it too). */
export function branchAnswer(branches: readonly BranchEntry[]) {
  return structuredResult(
    {
      branches: fitItems(
        branches.map((b) => ({ name: b.name, current: b.current, remote: b.remote, commit: b.commit })),
        ANSWER_CAP,
      ),
    },
    capText(branchText(branches), 'Narrow the list with contains / not_contains, or branch_type local.').text,
  );
}
