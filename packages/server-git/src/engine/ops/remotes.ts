/** `git_remote` (its definition: ../../tools/gitRemote.ts). */

import git from 'isomorphic-git';
import type { Repo } from '../repo.js';

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

/** A configured remote, its URLs without credentials. */
export interface RemoteInfo {
  name: string;
  fetch_url: string | null;
  push_urls: string[];
}

/** The remotes, sorted by name (as `git remote -v`). */
export async function remotes(repo: Repo): Promise<RemoteInfo[]> {
  const remotes: RemoteInfo[] = [];
  for (const { remote } of await git.listRemotes({ ...repo.git })) {
    const urls = ((await git.getConfigAll({ ...repo.git, path: `remote.${remote}.url` })) as unknown[]).map(String);
    const pushUrls = ((await git.getConfigAll({ ...repo.git, path: `remote.${remote}.pushurl` })) as unknown[]).map(String);
    const fetchUrl = urls.length > 0 ? redactUrl(urls[0]!) : null;
    const push = pushUrls.length > 0 ? pushUrls.map(redactUrl) : urls.map(redactUrl);
    remotes.push({ name: remote, fetch_url: fetchUrl, push_urls: push });
  }
  // git remote -v sorts by name; per remote: "<name>\t<url> (fetch)" (the first url), then one "(push)" line per push url.
  return remotes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
