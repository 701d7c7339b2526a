import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../context.js';
import { READ_ONLY, repoPath } from './common.js';

/**
 * A remote URL without credentials: `https://user:token@host/x` → `https://***@host/x`. Any user info
 * with a password is hidden; over http(s) a bare user name is too (tokens are often passed that way),
 * while `ssh://git@host/x` keeps its plain user name, as it is no secret.
 */
export function redactUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/@]*)@/i.exec(url);
  if (!m) return url;
  const [, scheme, userinfo] = m as unknown as [string, string, string];
  if (!userinfo.includes(':') && !/^https?$/i.test(scheme)) return url;
  return `${scheme}://***@${url.slice(m[0].length)}`;
}

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
  handler: async (args, ctx: GitContext) => (await import('../impl/gitRemote.js')).run(args, ctx),
});
