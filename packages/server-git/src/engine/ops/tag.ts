/** `git_tag` (its definition: ../../tools/gitTag.ts). */

import { structuredResult, ToolError } from '@mcpkit/protocol-core';
import git from 'isomorphic-git';
import { ANSWER_CAP, capText, fitItems } from '../../limits.js';
import type { GitContext } from '../context.js';
import { readObjectParsed } from '../git/objectRead.js';
import { listRefNames } from '../refs/branches.js';
import { identityFor } from '../refs/identity.js';
import { assertTagName, badName, guardDash } from '../refs/names.js';
import { updateRef, withRefWrites } from '../refs/refLock.js';
import { abbrev, resolveRevision } from '../refs/revision.js';
import { openRepo, type Repo } from '../repo.js';

/** git's wildmatch without WM_PATHNAME (as `git tag -l` uses it): `*` also matches `/`. */
export function globToRegExp(pattern: string): RegExp {
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

async function tagInfo(repo: Repo, name: string) {
  const oid = await git.resolveRef({ ...repo.git, ref: `refs/tags/${name}` });
  const { type, object } = await readObjectParsed(repo, oid);
  if (type === 'tag') {
    const tag = object as { object: string; type: string; message: string };
    return { name, oid, annotated: true, target: tag.object, message: tag.message };
  }
  return { name, oid, annotated: false, target: oid, message: null };
}

export interface TagArgs {
  repo_path: string;
  name?: string | undefined;
  target?: string | undefined;
  message?: string | undefined;
  pattern?: string | undefined;
}

export async function tag({ repo_path, name, target, message, pattern }: TagArgs, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  if (name === undefined) {
    if (target !== undefined || message !== undefined)
      throw new ToolError('target and message need a tag name; without one git_tag lists tags');
    const match = pattern ? globToRegExp(pattern) : null;
    const names = (await listRefNames(repo, 'refs/tags')).map((r) => r.slice('refs/tags/'.length)).filter((n) => !match || match.test(n));
    const tags = [];
    for (const n of names) tags.push(await tagInfo(repo, n));
    return structuredResult(
      { tags: fitItems(tags, ANSWER_CAP), created: false },
      capText(names.join('\n'), 'Narrow the list with pattern.').text,
    );
  }
  if (pattern !== undefined) throw new ToolError('pattern is for listing tags; leave out name to list');
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
    if (exists) throw new ToolError(`fatal: tag '${name}' already exists`);
    const conflict = (await listRefNames(repo, 'refs/tags')).find((r) => r.startsWith(`${full}/`) || full.startsWith(`${r}/`));
    if (conflict) throw new ToolError(`Cannot create tag '${name}': '${conflict}' exists`);
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
  return structuredResult(
    { tags: [info], created: true },
    `Created ${info.annotated ? 'annotated' : 'lightweight'} tag '${name}' at ${short}`,
  );
}
