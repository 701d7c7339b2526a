/** Branches as `git branch [-r|-a] [--contains X] [--no-contains Y]` lists them. */
import git from 'isomorphic-git';
import { reaches } from '../log/commits.js';
import type { Repo } from '../repo.js';
import { abbrev, readHead, resolveRevision } from './revision.js';

export interface BranchEntry {
  /** As git prints it: `main`, `origin/main` (`-r`), `remotes/origin/main` (`-a`), `(HEAD detached at abc1234)`. */
  name: string;
  /** The full ref (`refs/heads/main`), or `HEAD` for the detached line. */
  ref: string;
  current: boolean;
  remote: boolean;
  /** The commit at the tip. */
  commit: string;
  /** For a symbolic ref such as `origin/HEAD`: the branch it points to, as printed (`origin/main`). */
  target?: string;
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Full ref names under `prefix` (`refs/heads`), loose and packed (without packed-refs' peeled `^{}` lines), in git's (byte) order. */
export async function listRefNames(repo: Repo, prefix: string): Promise<string[]> {
  const names = await git.listRefs({ ...repo.git, filepath: prefix });
  return names
    .filter((n) => n !== '' && !n.startsWith('refs/') && !n.endsWith('^{}'))
    .map((n) => `${prefix}/${n}`)
    .sort(byteOrder);
}

async function symbolicTarget(repo: Repo, ref: string): Promise<string | null> {
  const target = await git.resolveRef({ ...repo.git, ref, depth: 2 });
  return target.startsWith('refs/') ? target : null;
}

/** git's "HEAD detached at/from <name>", from the last checkout in HEAD's reflog, as `git branch` prints it. */
async function detachedLabel(repo: Repo, head: string): Promise<string> {
  let log = '';
  try {
    log = await repo.git.fs.promises.readFile(`${repo.gitdir}/logs/HEAD`, 'utf8');
  } catch {
    return '(no branch)';
  }
  const lines = log.trimEnd().split('\n').reverse();
  for (const line of lines) {
    const m = /^[0-9a-f]{40} ([0-9a-f]{40}) .*\tcheckout: moving from .+ to (.+)$/.exec(line);
    if (!m) continue;
    const [, movedTo, name] = m as unknown as [string, string, string];
    let label = await abbrev(repo, movedTo);
    if (!/^[0-9a-f]{40}$/.test(name)) {
      const resolved = await resolveRevision(repo, name).catch(() => null);
      if (resolved?.ref && resolved.oid === movedTo) label = resolved.ref.replace(/^refs\/(tags|remotes)\//, '');
    }
    return `(HEAD detached ${head === movedTo ? 'at' : 'from'} ${label})`;
  }
  return '(no branch)';
}

export type BranchScope = 'local' | 'remote' | 'all';

/** The branches `git branch` would list for `scope`, detached HEAD first, then refs in byte order. */
export async function listBranches(repo: Repo, scope: BranchScope): Promise<BranchEntry[]> {
  const out: BranchEntry[] = [];
  const head = await readHead(repo);
  if (scope !== 'remote') {
    if (head.branch === null && head.oid !== null) {
      out.push({ name: await detachedLabel(repo, head.oid), ref: 'HEAD', current: true, remote: false, commit: head.oid });
    }
    for (const ref of await listRefNames(repo, 'refs/heads')) {
      const commit = await git.resolveRef({ ...repo.git, ref }).catch(() => null);
      if (commit === null) continue;
      out.push({ name: ref.slice('refs/heads/'.length), ref, current: ref === head.branch, remote: false, commit });
    }
  }
  if (scope !== 'local') {
    const strip = scope === 'all' ? 'refs/' : 'refs/remotes/';
    for (const ref of await listRefNames(repo, 'refs/remotes')) {
      const commit = await git.resolveRef({ ...repo.git, ref }).catch(() => null);
      if (commit === null) continue;
      const entry: BranchEntry = { name: ref.slice(strip.length), ref, current: false, remote: true, commit };
      const target = await symbolicTarget(repo, ref).catch(() => null);
      if (target !== null) entry.target = target.replace(/^refs\/remotes\//, '').replace(/^refs\/heads\//, '');
      out.push(entry);
    }
  }
  return out;
}

/** Keeps the branches whose tip contains `contains` and does not contain `notContains` (commit oids). */
export async function filterBranches(
  repo: Repo,
  branches: BranchEntry[],
  contains: string | null,
  notContains: string | null,
): Promise<BranchEntry[]> {
  const kept: BranchEntry[] = [];
  for (const b of branches) {
    if (contains !== null && !(await reaches(repo, b.commit, contains))) continue;
    if (notContains !== null && (await reaches(repo, b.commit, notContains))) continue;
    kept.push(b);
  }
  return kept;
}
