/**
 * The engine: git on isomorphic-git, the only part of this server that imports isomorphic-git or reads
 * and writes the repository's files. Each operation takes a tool's arguments and the GitContext, opens
 * the repository once for the call (./repo.ts: confinement first, then the confined fs and the call's
 * work-tree view) and answers the tool's result. The tools (../tools) load this module once, on the first
 * call of any of them (`loadEngine`), so a start-up that only lists tools never compiles it (the server
 * imports only ./roots.ts, ./repoCache.ts, ./diff/patchCache.ts and, in the CLI, ./startup.ts up front).
 */
export { add } from './ops/add.js';
export { blameFile } from './ops/blame.js';
export { branches } from './ops/branches.js';
export { checkout } from './ops/checkout.js';
export { commit } from './ops/commit.js';
export { createBranch } from './ops/createBranch.js';
export { diffStaged, diffUnstaged, diffWith } from './ops/diff.js';
export { fetch } from './ops/fetch.js';
export { init } from './ops/init.js';
export { log } from './ops/log.js';
export { merge } from './ops/merge.js';
export { pull } from './ops/pull.js';
export { push } from './ops/push.js';
export { remotes } from './ops/remotes.js';
export { reset } from './ops/reset.js';
export { restore } from './ops/restore.js';
export { show } from './ops/show.js';
export { stash } from './ops/stash.js';
export { stashList } from './ops/stashList.js';
export { status } from './ops/status.js';
export { tag } from './ops/tag.js';
