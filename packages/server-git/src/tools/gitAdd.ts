import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { openRepository, repoPath } from './common.js';

const gitAddInput = {
  repo_path: repoPath,
  files: z
    .array(z.string())
    .min(1)
    .meta({ title: 'Files' })
    .describe(
      'Files or folders to stage, relative to the top of the work tree; ["."] stages every change and untracked file (respecting .gitignore)',
    ),
};

export const gitAdd = defineTool({
  name: 'git_add',
  title: 'Stage files',
  description: 'Adds file contents to the staging area',
  input: gitAddInput,
  output: {
    staged: z.array(z.string()).describe('Paths whose new content was staged'),
    removed: z.array(z.string()).describe('Deleted paths whose deletion was staged'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ repo_path, files }, ctx: GitContext) =>
    structuredResult(await (await openRepository(ctx, repo_path)).add(files), 'Files staged successfully'),
});
