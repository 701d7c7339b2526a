/** `git_remote` (its definition: ../../tools/gitRemote.ts). */

import { structuredResult } from '@mcpkit/protocol-core';
import git from 'isomorphic-git';
import type { GitContext } from '../context.js';
import { openRepo } from '../repo.js';

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

export interface RemotesArgs {
  repo_path: string;
}

export async function remotes({ repo_path }: RemotesArgs, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  const remotes = [];
  for (const { remote } of await git.listRemotes({ ...repo.git })) {
    const urls = ((await git.getConfigAll({ ...repo.git, path: `remote.${remote}.url` })) as unknown[]).map(String);
    const pushUrls = ((await git.getConfigAll({ ...repo.git, path: `remote.${remote}.pushurl` })) as unknown[]).map(String);
    const fetchUrl = urls.length > 0 ? redactUrl(urls[0]!) : null;
    const push = pushUrls.length > 0 ? pushUrls.map(redactUrl) : urls.map(redactUrl);
    remotes.push({ name: remote, fetch_url: fetchUrl, push_urls: push });
  }
  // git remote -v sorts by name; per remote: "<name>\t<url> (fetch)" (the first url), then one "(push)" line per push url.
  remotes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lines: string[] = [];
  for (const r of remotes) {
    if (r.fetch_url !== null) lines.push(`${r.name}\t${r.fetch_url} (fetch)`);
    for (const url of r.push_urls) lines.push(`${r.name}\t${url} (push)`);
  }
  return structuredResult({ remotes }, lines.join('\n'));
}
