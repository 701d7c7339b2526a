import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { loadEngine, READ_ONLY, repoPath } from './common.js';

export const gitRemoteInput = { repo_path: repoPath };

export const gitRemote = defineTool({
  name: 'git_remote',
  title: 'List remotes',
  description: 'Lists the remotes with their fetch and push URLs, like git remote -v. Credentials embedded in URLs are replaced with ***.',
  input: gitRemoteInput,
  output: {
    remotes: z
      .array(
        z.object({
          name: z.string(),
          fetch_url: z.string().nullable().describe('remote.<name>.url, credentials redacted'),
          push_urls: z.array(z.string()).describe('remote.<name>.pushurl values, else the fetch URL'),
        }),
      )
      .describe('Remotes sorted by name, as git remote lists them'),
  },
  annotations: READ_ONLY,
  handler: async (args, ctx: GitContext) => (await loadEngine()).remotes(args, ctx),
});
