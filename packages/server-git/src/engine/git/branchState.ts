/**
 * What the first lines of `git status` say: the branch (or where a detached HEAD came from, found in
 * HEAD's reflog as git does), its upstream with ahead/behind counts, and a merge in progress.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as git from 'isomorphic-git';
import type { Repo } from '../repo.js';
import { abbreviate } from './abbrev.js';
import { repoConfig } from './gitConfig.js';
import { readCommit, readObjectParsed } from './objectRead.js';

interface Upstream {
  /** As git shows it: `origin/main`, or a local branch name. */
  name: string;
  /** The upstream ref no longer exists. */
  gone: boolean;
  ahead: number;
  behind: number;
}

export interface BranchState {
  /** The branch's short name, or null when HEAD is detached. */
  branch: string | null;
  detached: boolean;
  /** `On branch x`, `HEAD detached at <abbrev|ref>`, `HEAD detached from …` or `Not currently on any branch.` */
  headLine: string;
  /** HEAD's commit, null on an unborn branch. */
  head: string | null;
  upstream?: Upstream;
  /** MERGE_HEAD exists. */
  merging: boolean;
}

async function resolveOrNull(repo: Repo, ref: string): Promise<string | null> {
  try {
    return await git.resolveRef({ ...repo.git, ref });
  } catch {
    return null;
  }
}

/** The commit a ref or tag points to (tags peeled), or null. */
async function peelToCommit(repo: Repo, oid: string): Promise<string | null> {
  for (let i = 0; i < 10; i++) {
    try {
      const { type, object } = await readObjectParsed(repo, oid);
      if (type === 'commit') return oid;
      if (type !== 'tag') return null;
      oid = (object as { object: string }).object;
    } catch {
      return null;
    }
  }
  return null;
}

/** Git's `detached_from`: the last "checkout: moving from A to B" in HEAD's reflog. */
async function detachedLine(repo: Repo, head: string | null): Promise<string> {
  let log = '';
  try {
    log = readFileSync(join(repo.gitdir, 'logs', 'HEAD'), 'utf8');
  } catch {}
  const lines = log.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const message = line.slice(tab + 1);
    if (!message.startsWith('checkout: moving from ')) continue;
    const to = message.indexOf(' to ', 'checkout: moving from '.length);
    if (to < 0) continue;
    const target = message.slice(to + 4);
    const noid = line.split(' ')[1]!;
    let from: string | null = null;
    if (target !== 'HEAD') {
      const candidates = [
        target,
        `refs/${target}`,
        `refs/tags/${target}`,
        `refs/heads/${target}`,
        `refs/remotes/${target}`,
        `refs/remotes/${target}/HEAD`,
      ];
      const found: { ref: string; oid: string }[] = [];
      for (const ref of candidates) {
        if (ref === target && !/^(refs\/|HEAD$|[A-Z_]+_HEAD$)/.test(ref)) continue;
        const oid = await resolveOrNull(repo, ref);
        if (oid) found.push({ ref, oid });
      }
      if (found.length === 1 && (found[0]!.oid === noid || (await peelToCommit(repo, found[0]!.oid)) === noid)) {
        from = found[0]!.ref.replace(/^refs\/(tags|remotes)\//, '');
      }
    }
    from ??= await abbreviate(repo, noid);
    return `${head === noid ? 'HEAD detached at ' : 'HEAD detached from '}${from}`;
  }
  return 'Not currently on any branch.';
}

/** The upstream ref of `branch` (branch.<b>.remote/merge, mapped through the remote's fetch refspecs). */
function upstreamRef(repo: Repo, branch: string): string | null {
  const config = repoConfig(repo);
  const remote = config.get(`branch.${branch}.remote`)?.at(-1);
  const merge = config.get(`branch.${branch}.merge`)?.at(-1);
  if (!remote || !merge) return null;
  if (remote === '.') return merge;
  for (const spec of config.get(`remote.${remote}.fetch`) ?? []) {
    const [src, dst] = spec.replace(/^\+/, '').split(':');
    if (!src || !dst) continue;
    const star = src.indexOf('*');
    if (star < 0) {
      if (src === merge) return dst;
    } else if (merge.startsWith(src.slice(0, star)) && merge.endsWith(src.slice(star + 1))) {
      return dst.replace('*', merge.slice(star, merge.length - (src.length - star - 1)));
    }
  }
  return null;
}

function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|remotes|tags)\//, '');
}

/** Commits reachable from `ours` but not `theirs` (ahead) and the reverse (behind): a date-ordered paint walk. */
async function aheadBehind(repo: Repo, ours: string, theirs: string): Promise<{ ahead: number; behind: number }> {
  if (ours === theirs) return { ahead: 0, behind: 0 };
  const key = `${ours}:${theirs}`;
  const memo = repo.state.aheadBehind?.get(key);
  if (memo) return memo;
  const flags = new Map<string, number>();
  const info = new Map<string, { time: number; parents: string[] }>();
  const load = async (oid: string) => {
    let c = info.get(oid);
    if (!c) {
      const { commit } = await readCommit(repo, oid);
      c = { time: commit.committer.timestamp, parents: commit.parent };
      info.set(oid, c);
    }
    return c;
  };
  const queue: string[] = [];
  const push = async (oid: string, flag: number) => {
    const old = flags.get(oid) ?? 0;
    if ((old | flag) === old) return;
    flags.set(oid, old | flag);
    await load(oid);
    queue.push(oid);
  };
  await push(ours, 1);
  await push(theirs, 2);
  while (queue.some((oid) => flags.get(oid) !== 3)) {
    // Newest first.
    let best = 0;
    for (let i = 1; i < queue.length; i++) if (info.get(queue[i]!)!.time > info.get(queue[best]!)!.time) best = i;
    const oid = queue.splice(best, 1)[0]!;
    const flag = flags.get(oid)!;
    for (const parent of info.get(oid)!.parents) await push(parent, flag);
  }
  // Commits reached from one side first (equal or skewed dates) may still be reachable from the other:
  // carry the "both" mark down through the commits already seen.
  while (queue.length) {
    const oid = queue.pop()!;
    for (const parent of info.get(oid)!.parents) {
      const old = flags.get(parent);
      if (old !== undefined && old !== 3) {
        flags.set(parent, 3);
        queue.push(parent);
      }
    }
  }
  let ahead = 0;
  let behind = 0;
  for (const flag of flags.values()) {
    if (flag === 1) ahead++;
    else if (flag === 2) behind++;
  }
  const result = { ahead, behind };
  repo.state.aheadBehind ??= new Map();
  repo.state.aheadBehind.set(key, result);
  return result;
}

export async function branchState(repo: Repo): Promise<BranchState> {
  let headText = '';
  try {
    headText = readFileSync(join(repo.gitdir, 'HEAD'), 'utf8').trim();
  } catch {}
  const head = await resolveOrNull(repo, 'HEAD');
  const merging = existsSync(join(repo.gitdir, 'MERGE_HEAD'));
  const symbolic = /^ref:\s*(\S+)$/.exec(headText);
  if (!symbolic) {
    return { branch: null, detached: true, headLine: await detachedLine(repo, head), head, merging };
  }
  const ref = symbolic[1]!;
  const branch = ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
  const state: BranchState = { branch, detached: false, headLine: `On branch ${branch}`, head, merging };
  const upRef = head ? upstreamRef(repo, branch) : null;
  if (upRef) {
    const upOid = await resolveOrNull(repo, upRef);
    if (upOid === null) state.upstream = { name: shortRef(upRef), gone: true, ahead: 0, behind: 0 };
    else state.upstream = { name: shortRef(upRef), gone: false, ...(await aheadBehind(repo, head!, upOid)) };
  }
  return state;
}
