/**
 * The engine's entry: `openRepository(ctx, path)` confines the path (roots, realpath, git dirs: ./repo.ts)
 * and returns the repository's operations. Each returns plain data and throws a GitError (./errors.ts)
 * with a code when it cannot do what was asked; none knows of MCP. The tools (../tools) turn the data
 * into answers. `initRepository` makes a new repository (there is none to open yet).
 */
import type { GitContext } from './context.js';
import type { DiffPage } from './diff/diffTool.js';
import { type AddData, add } from './ops/add.js';
import { type BlameData, type BlameOptions, blameFile } from './ops/blame.js';
import { type BranchesOptions, branches } from './ops/branches.js';
import { type CheckoutData, checkout } from './ops/checkout.js';
import { type CommitData, commit } from './ops/commit.js';
import { type CreateBranchData, type CreateBranchOptions, createBranch } from './ops/createBranch.js';
import { type DiffOptions, diffStaged, diffUnstaged, diffWith } from './ops/diff.js';
import { type FetchData, type FetchOptions, fetch } from './ops/fetch.js';
import { type InitData, init } from './ops/init.js';
import { type LogData, type LogOptions, log } from './ops/log.js';
import { type MergeData, type MergeOptions, merge } from './ops/merge.js';
import { type PullData, type PullOptions, pull } from './ops/pull.js';
import { type PushData, type PushOptions, push } from './ops/push.js';
import { type RemoteInfo, remotes } from './ops/remotes.js';
import { type ResetData, reset } from './ops/reset.js';
import { type RestoreData, type RestoreOptions, restore } from './ops/restore.js';
import { type ShowData, type ShowOptions, show } from './ops/show.js';
import { type StashData, type StashOptions, stash } from './ops/stash.js';
import { type StashEntry, stashList } from './ops/stashList.js';
import { type StatusData, status } from './ops/status.js';
import { type TagData, type TagOptions, tag } from './ops/tag.js';
import type { BranchEntry } from './refs/branches.js';
import type { CallOptions } from './remote/call.js';
import { openRepo } from './repo.js';

/** One confined repository and what can be done with it (each call reads the repository afresh). */
export interface Repository {
  /** The work tree (real path). */
  readonly dir: string;
  /** The git directory (real path). */
  readonly gitdir: string;
  status(): Promise<StatusData>;
  /** git diff: the index against the work tree. */
  diffUnstaged(options?: DiffOptions): Promise<DiffPage>;
  /** git diff --cached: HEAD against the index. */
  diffStaged(options?: DiffOptions): Promise<DiffPage>;
  /** git diff <target>: a revision's tree against the work tree. */
  diff(target: string, options?: DiffOptions): Promise<DiffPage>;
  log(options?: LogOptions): Promise<LogData>;
  show(options: ShowOptions): Promise<ShowData>;
  blame(options: BlameOptions): Promise<BlameData>;
  /** git add -- <files…>. */
  add(files: readonly string[]): Promise<AddData>;
  /** Unstages everything (the index becomes HEAD's tree). */
  reset(): Promise<ResetData>;
  commit(message: string): Promise<CommitData>;
  /** null for a branch_type git branch has no flag for. */
  branches(options: BranchesOptions): Promise<BranchEntry[] | null>;
  createBranch(options: CreateBranchOptions): Promise<CreateBranchData>;
  checkout(name: string): Promise<CheckoutData>;
  /** Lists tags (no name) or creates one. */
  tags(options?: TagOptions): Promise<TagData>;
  stash(options: StashOptions): Promise<StashData>;
  stashList(): Promise<StashEntry[]>;
  merge(options: MergeOptions): Promise<MergeData>;
  restore(options: RestoreOptions): Promise<RestoreData>;
  remotes(): Promise<RemoteInfo[]>;
  fetch(options?: FetchOptions, call?: CallOptions): Promise<FetchData>;
  pull(options?: PullOptions, call?: CallOptions): Promise<PullData>;
  push(options?: PushOptions, call?: CallOptions): Promise<PushData>;
}

/** Confines `repoPath` to the session's roots (GitError NO_ROOTS, OUTSIDE_ROOTS, NOT_A_REPOSITORY …) and opens it. */
export async function openRepository(ctx: GitContext, repoPath: string): Promise<Repository> {
  const repo = await openRepo(ctx, repoPath);
  return {
    dir: repo.dir,
    gitdir: repo.gitdir,
    status: () => status(repo, ctx),
    diffUnstaged: (options = {}) => diffUnstaged(repo, options, ctx),
    diffStaged: (options = {}) => diffStaged(repo, options, ctx),
    diff: (target, options = {}) => diffWith(repo, target, options, ctx),
    log: (options = {}) => log(repo, options, ctx),
    show: (options) => show(repo, options, ctx),
    blame: (options) => blameFile(repo, options),
    add: (files) => add(repo, files, ctx),
    reset: () => reset(repo),
    commit: (message) => commit(repo, message, ctx),
    branches: (options) => branches(repo, options),
    createBranch: (options) => createBranch(repo, options),
    checkout: (name) => checkout(repo, name, ctx),
    tags: (options = {}) => tag(repo, options, ctx),
    stash: (options) => stash(repo, options, ctx),
    stashList: () => stashList(repo),
    merge: (options) => merge(repo, options, ctx),
    restore: (options) => restore(repo, options),
    remotes: () => remotes(repo),
    fetch: (options = {}, call) => fetch(repo, options, ctx, call),
    pull: (options = {}, call) => pull(repo, options, ctx, call),
    push: (options = {}, call) => push(repo, options, ctx, call),
  };
}

/** `git init` at `repoPath` inside the session's roots (see ./ops/init.ts for what is refused). */
export function initRepository(ctx: GitContext, repoPath: string, initialBranch: string | null = null): Promise<InitData> {
  return init(ctx, repoPath, initialBranch);
}
