import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { openRepository, repoPath } from './common.js';

const gitCheckoutInput = {
  repo_path: repoPath,
  branch_name: z.string().meta({ title: 'Branch Name' }).describe('Branch to switch to; a tag or commit detaches HEAD there'),
};

export const gitCheckout = defineTool({
  name: 'git_checkout',
  title: 'Switch branches',
  description: 'Switches branches',
  input: gitCheckoutInput,
  output: {
    branch: z.string().nullable().describe('The branch now checked out, or null when HEAD is detached'),
    commit: z.string().describe('The commit HEAD is at'),
    previous: z.string().nullable().describe('The commit HEAD was at before'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ repo_path, branch_name }, ctx: GitContext) =>
    structuredResult(await (await openRepository(ctx, repo_path)).checkout(branch_name), `Switched to branch '${branch_name}'`),
});
