/** `git_tag` (its definition: ../../tools/gitTag.ts). */

import git from 'isomorphic-git';
import type { GitContext } from '../context.js';
import { GitError } from '../errors.js';
import { readObjectParsed } from '../git/objectRead.js';
import { listRefNames } from '../refs/branches.js';
import { identityFor } from '../refs/identity.js';
import { assertTagName, badName, guardDash } from '../refs/names.js';
import { updateRef, withRefWrites } from '../refs/refLock.js';
import { abbrev, resolveRevision } from '../refs/revision.js';
import type { Repo } from '../repo.js';

/** git's wildmatch without WM_PATHNAME (as `git tag -l` uses it): `*` also matches `/`. */
function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else if (ch === '\\' && i + 1 < pattern.length) re += `\\${pattern[++i]}`;
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        let body = pattern.slice(i + 1, end);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += ch.replace(/[.+^${}()|\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

/** A tag: lightweight (its ref names the commit) or annotated (a tag object, with its message). */
interface TagInfo {
  name: string;
  oid: string;
  annotated: boolean;
  target: string;
  message: string | null;
}

async function tagInfo(repo: Repo, name: string): Promise<TagInfo> {
  const oid = await git.resolveRef({ ...repo.git, ref: `refs/tags/${name}` });
  const { type, object } = await readObjectParsed(repo, oid);
  if (type === 'tag') {
    const tag = object as { object: string; type: string; message: string };
    return { name, oid, annotated: true, target: tag.object, message: tag.message };
  }
  return { name, oid, annotated: false, target: oid, message: null };
}

export interface TagOptions {
  name?: string | undefined;
  target?: string | undefined;
  message?: string | undefined;
  pattern?: string | undefined;
}

/** The tags listed (created false), or the one tag created, with the short id of its commit. */
export type TagData = { created: false; tags: TagInfo[] } | { created: true; tags: [TagInfo]; short: string };

export async function tag(repo: Repo, { name, target, message, pattern }: TagOptions, ctx: GitContext): Promise<TagData> {
  if (name === undefined) {
    if (target !== undefined || message !== undefined)
      throw new GitError('INVALID_ARGUMENT', 'target and message need a tag name; without one git_tag lists tags');
    const match = pattern ? globToRegExp(pattern) : null;
    const names = (await listRefNames(repo, 'refs/tags')).map((r) => r.slice('refs/tags/'.length)).filter((n) => !match || match.test(n));
    const tags: TagInfo[] = [];
    for (const n of names) tags.push(await tagInfo(repo, n));
    return { tags, created: false };
  }
  if (pattern !== undefined) throw new GitError('INVALID_ARGUMENT', 'pattern is for listing tags; leave out name to list');
  guardDash('tag name', name);
  guardDash('target', target);
  assertTagName(name);
  const resolved = await resolveRevision(repo, target ?? 'HEAD');
  if (!resolved) throw badName(target ?? 'HEAD');
  const full = `refs/tags/${name}`;
  await withRefWrites(repo, async () => {
    const exists = await git
      .resolveRef({ ...repo.git, ref: full })
      .then(() => true)
      .catch(() => false);
    if (exists) throw new GitError('CONFLICT', `fatal: tag '${name}' already exists`);
    const conflict = (await listRefNames(repo, 'refs/tags')).find((r) => r.startsWith(`${full}/`) || full.startsWith(`${r}/`));
    if (conflict) throw new GitError('CONFLICT', `Cannot create tag '${name}': '${conflict}' exists`);
    let value = resolved.oid;
    if (message !== undefined) {
      const tagger = identityFor(repo, ctx, 'committer');
      const text = `${message.replace(/\s+$/, '')}\n`;
      value = await git.writeTag({ ...repo.git, tag: { object: resolved.oid, type: 'commit', tag: name, tagger, message: text } });
    }
    // Created only where no tag is (compare-and-swap with "missing", under the ref's lock).
    await updateRef(repo, { ref: full, value, expected: null });
  });
  const info = await tagInfo(repo, name);
  const short = await abbrev(repo, resolved.oid);
  return { tags: [info], created: true, short };
}
