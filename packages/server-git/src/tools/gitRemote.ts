import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { openRepository, READ_ONLY, repoPath } from './common.js';

const gitRemoteInput = { repo_path: repoPath };

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
  handler: async ({ repo_path }, ctx: GitContext) => {
    const remotes = await (await openRepository(ctx, repo_path)).remotes();
    // git remote -v: per remote "<name>\t<url> (fetch)" (the first url), then one "(push)" line per push url.
    const lines: string[] = [];
    for (const r of remotes) {
      if (r.fetch_url !== null) lines.push(`${r.name}\t${r.fetch_url} (fetch)`);
      for (const url of r.push_urls) lines.push(`${r.name}\t${url} (push)`);
    }
    return structuredResult({ remotes }, lines.join('\n'));
  },
});
