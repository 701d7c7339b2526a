/** `git_commit` (its definition: ../../tools/gitCommit.ts). */

import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as git from 'isomorphic-git';
import type { GitContext } from '../context.js';
import { GitError } from '../errors.js';
import { formatPerson, type Person, resolvePerson } from '../git/identity.js';
import type { IndexEntry } from '../git/indexFile.js';
import { withIndexLock } from '../git/indexLock.js';
import { headCommit } from '../git/objects.js';
import { assertSafePath } from '../git/paths.js';
import { updateRef } from '../refs/refLock.js';
import type { Repo } from '../repo.js';

type TreeNode = { files: { name: string; mode: string; oid: string; type: 'blob' | 'commit' }[]; dirs: Map<string, TreeNode> };

/** Writes the trees of the stage-0 index entries (intent-to-add entries left out, as git write-tree does). */
async function writeIndexTree(repo: Repo, entries: readonly IndexEntry[]): Promise<string> {
  const root: TreeNode = { files: [], dirs: new Map() };
  for (const e of entries) {
    if (e.stage !== 0 || e.intentToAdd) continue;
    assertSafePath(e.path);
    const parts = e.path.split('/');
    let node = root;
    for (const dir of parts.slice(0, -1)) {
      let next = node.dirs.get(dir);
      if (!next) {
        next = { files: [], dirs: new Map() };
        node.dirs.set(dir, next);
      }
      node = next;
    }
    node.files.push({
      name: parts.at(-1)!,
      mode: e.mode.toString(8).padStart(6, '0'),
      oid: e.oid,
      type: e.mode === 0o160000 ? 'commit' : 'blob',
    });
  }
  const write = async (node: TreeNode): Promise<string> => {
    const tree: { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' }[] = node.files.map((f) => ({
      mode: f.mode,
      path: f.name,
      oid: f.oid,
      type: f.type,
    }));
    for (const [name, child] of node.dirs) tree.push({ mode: '040000', path: name, oid: await write(child), type: 'tree' });
    return git.writeTree({ ...repo.git, tree });
  };
  return write(root);
}

/** The commit object's bytes, message verbatim (as GitPython writes it: no newline added or removed). */
function serializeCommit(tree: string, parents: readonly string[], author: Person, committer: Person, message: string): Buffer {
  let head = `tree ${tree}\n`;
  for (const p of parents) head += `parent ${p}\n`;
  head += `author ${formatPerson(author)}\ncommitter ${formatPerson(committer)}\n\n`;
  return Buffer.from(head + message, 'utf8');
}

function appendReflog(repo: Repo, ref: string, oldOid: string | null, newOid: string, who: Person, message: string): void {
  const file = join(repo.commondir, 'logs', ref);
  if (ref === 'HEAD' ? !existsSync(join(repo.gitdir, 'logs')) : false) return;
  const target = ref === 'HEAD' ? join(repo.gitdir, 'logs', 'HEAD') : file;
  mkdirSync(dirname(target), { recursive: true });
  const subject = message.split('\n')[0]!;
  appendFileSync(target, `${oldOid ?? '0'.repeat(40)} ${newOid} ${formatPerson(who)}\t${message === '' ? '' : subject}\n`);
}

/** The commit made: its id, the branch moved to it (null when HEAD is detached), its parents. */
export interface CommitData {
  hash: string;
  branch: string | null;
  parents: string[];
}

export async function commit(repo: Repo, message: string, ctx: GitContext): Promise<CommitData> {
  const user = { env: ctx.env, home: ctx.home };
  const author = resolvePerson(repo, user, 'author');
  const committer = resolvePerson(repo, user, 'committer');
  // As git commit: the index is read under index.lock (a file staged meanwhile is either in this
  // commit or still staged after it), and the branch moves under its own lock, only from the commit
  // this one is based on.
  return withIndexLock(repo, async (held) => {
    const index = held.index;
    if (index.unmerged.size > 0) {
      throw new GitError(
        'CONFLICT',
        `Committing is not possible because you have unmerged files (${[...index.unmerged.keys()].join(', ')}). Fix them up in the work tree, and then stage them with git_add to mark resolution.`,
      );
    }
    const headText = readFileSync(join(repo.gitdir, 'HEAD'), 'utf8').trim();
    const symbolic = /^ref:\s*(\S+)$/.exec(headText)?.[1] ?? null;
    const parent = await headCommit(repo);
    const parents = parent ? [parent] : [];
    const mergeHead = join(repo.gitdir, 'MERGE_HEAD');
    const merging = existsSync(mergeHead);
    if (merging) {
      for (const line of readFileSync(mergeHead, 'utf8').split('\n')) if (/^[0-9a-f]{40}$/.test(line.trim())) parents.push(line.trim());
    }
    const tree = await writeIndexTree(repo, index.parsed.entries);
    const oid = await git.writeObject({
      ...repo.git,
      type: 'commit',
      format: 'content',
      object: serializeCommit(tree, parents, author, committer, message),
    });
    const ref = symbolic ?? 'HEAD';
    const kind = parent === null ? 'commit (initial)' : merging ? 'commit (merge)' : 'commit';
    const subject = message.split('\n')[0]!;
    await updateRef(repo, {
      ref,
      value: oid,
      expected: parent,
      log: () => {
        try {
          if (symbolic) appendReflog(repo, symbolic, parent, oid, committer, `${kind}: ${subject}`);
          appendReflog(repo, 'HEAD', parent, oid, committer, `${kind}: ${subject}`);
        } catch {
          // The reflog is a convenience; the commit stands.
        }
      },
    });
    if (merging) for (const f of ['MERGE_HEAD', 'MERGE_MSG', 'MERGE_MODE']) rmSync(join(repo.gitdir, f), { force: true });
    const branch = symbolic?.startsWith('refs/heads/') ? symbolic.slice('refs/heads/'.length) : null;
    return { hash: oid, branch, parents };
  });
}
