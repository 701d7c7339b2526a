/** `git_show` (its answer: ../../tools/gitShow.ts). */

import type { GitContext } from '../context.js';
import { createAbbreviator } from '../diff/abbrev.js';
import { compareTrees, renderPatches } from '../diff/changes.js';
import { fileData } from '../diff/diffTool.js';
import { cursorFingerprint, DEFAULT_MAX_BYTES, fingerprint, type Paged, pageBytes } from '../diff/paging.js';
import { byteString } from '../diff/patch.js';
import type { CachedPatch, FileData } from '../diff/patchCache.js';
import { guardDash, resolveObject } from '../diff/rev.js';
import { gitPythonFile } from '../diff/show.js';
import { GitError } from '../errors.js';
import { actorRepr, eastOffset, isoOffset, pyDatetimeRepr, pyRepr } from '../format/python.js';
import { readCommit, readObjectContent } from '../git/objectRead.js';
import type { Repo } from '../repo.js';

interface Who {
  name: string;
  email: string;
  timestamp: number;
  timezoneOffset: number;
}

function isoDate(p: Who): string {
  const east = eastOffset(p.timezoneOffset);
  const local = new Date((p.timestamp + east * 60) * 1000).toISOString().slice(0, 19);
  return local + isoOffset(east);
}

/**
 * The message exactly as stored (GitPython's `commit.message`): isomorphic-git's readCommit adds a
 * final newline when the message has none (common for commits made on GitHub).
 */
async function rawMessage(repo: Repo, oid: string): Promise<string> {
  const { object } = await readObjectContent(repo, oid);
  const raw = Buffer.from(object as Uint8Array);
  const at = raw.indexOf('\n\n');
  return at < 0 ? '' : raw.subarray(at + 2).toString('utf8');
}

const who = (p: Who) => ({ name: p.name, email: p.email, date: isoDate(p) });

export interface ShowOptions {
  revision: string;
  max_bytes?: number | undefined;
  cursor?: string | undefined;
  /**
   * Show the commit only if it changes at most `files` files of at most `bytes` bytes in all (both sides, sizes
   * read from the objects' headers, nothing inflated); else a `LIMIT_EXCEEDED` GitError before any patch is
   * rendered. For a caller that must bound its work (the read-ahead); none: any commit is shown.
   */
  within?: { files: number; bytes: number } | undefined;
}

/** Throws unless the change from `parent` to `oid` is within `limit` (see ShowOptions.within). */
async function checkWithin(repo: Repo, parent: string | null, oid: string, limit: { files: number; bytes: number }): Promise<void> {
  const over = (what: string) => new GitError('LIMIT_EXCEEDED', `commit ${oid} changes ${what}`);
  const pairs = await compareTrees(repo, parent, oid, { renames: false });
  if (pairs.length > limit.files) throw over(`more than ${limit.files} files`);
  let bytes = 0;
  for (const pair of pairs) {
    for (const entry of [pair.old, pair.new]) {
      if (!entry || (entry.mode & 0o170000) === 0o160000) continue; // a submodule's commit is not in this repository
      const size = repo.objects.size(entry.oid);
      if (size === null) throw over('an object whose size is unknown');
      bytes += size;
      if (bytes > limit.bytes) throw over(`more than ${limit.bytes} bytes`);
    }
  }
}

interface ShowPerson {
  name: string;
  email: string;
  /** ISO 8601 with the offset. */
  date: string;
}

/**
 * A commit, and one page of what the reference prints for it (GitPython's header, then git
 * diff-tree -M -p against its first parent), with the files that start on that page.
 */
export interface ShowData {
  commit: { oid: string; author: ShowPerson; committer: ShowPerson; message: string; parents: string[] };
  files: FileData[];
  page: Paged;
}

export async function show(repo: Repo, { revision, max_bytes, cursor, within }: ShowOptions, ctx: GitContext): Promise<ShowData> {
  guardDash(revision, 'revision');
  // GitPython's repo.commit(): an abbreviated sha is tried before refs.
  const oid = await resolveObject(repo, revision, { shaFirst: true, kind: 'commit' });
  const { commit } = await readCommit(repo, oid);
  const message = await rawMessage(repo, oid);
  const header =
    `Commit: ${pyRepr(oid)}\n` +
    `Author: ${actorRepr(commit.author.name, commit.author.email)}\n` +
    `Date: ${pyDatetimeRepr(commit.author.timestamp, eastOffset(commit.author.timezoneOffset))}\n` +
    `Message: ${pyRepr(message)}\n`;
  // git diff-tree -M -p <first parent> <commit> (a root commit: against the empty tree). A commit's patch never
  // changes: its further pages come from ctx.patchCache.
  const key = JSON.stringify(['show', repo.gitdir, oid]);
  const wanted = cursor === undefined ? undefined : cursorFingerprint(cursor);
  let patch: CachedPatch | undefined = wanted === undefined ? undefined : ctx.patchCache.get(key, wanted);
  let fp = wanted;
  if (!patch) {
    const parent = commit.parent[0] ?? null;
    if (within) await checkWithin(repo, parent, oid, within);
    const pairs = await compareTrees(repo, parent, oid, { renames: true });
    const patches = await renderPatches(pairs, 3, await createAbbreviator(repo));
    let whole = byteString(header);
    const starts: number[] = [];
    patches.forEach((p, i) => {
      starts.push(whole.length);
      whole += gitPythonFile(p, pairs[i]!.old !== null, pairs[i]!.new !== null);
    });
    patch = { whole, starts, files: patches.map(fileData) };
    fp = fingerprint(whole);
    if (whole.length > (max_bytes ?? DEFAULT_MAX_BYTES)) ctx.patchCache.set(key, fp, patch);
  }
  const { starts } = patch;
  const page = pageBytes(patch.whole, max_bytes, cursor, fp);
  const files = patch.files.filter((_, i) => starts[i]! >= page.start && starts[i]! < page.end);
  return {
    commit: { oid, author: who(commit.author), committer: who(commit.committer), message, parents: commit.parent },
    files,
    page,
  };
}
