import { withFsRefusals } from './fsRefusals.js';
import { gitAdd } from './gitAdd.js';
import { gitBlame } from './gitBlame.js';
import { gitBranch } from './gitBranch.js';
import { gitCheckout } from './gitCheckout.js';
import { gitCommit } from './gitCommit.js';
import { gitCreateBranch } from './gitCreateBranch.js';
import { gitDiff } from './gitDiff.js';
import { gitDiffStaged } from './gitDiffStaged.js';
import { gitDiffUnstaged } from './gitDiffUnstaged.js';
import { gitFetch } from './gitFetch.js';
import { gitInit } from './gitInit.js';
import { gitLog } from './gitLog.js';
import { gitMerge } from './gitMerge.js';
import { gitPull } from './gitPull.js';
import { gitPush } from './gitPush.js';
import { gitRemote } from './gitRemote.js';
import { gitReset } from './gitReset.js';
import { gitRestore } from './gitRestore.js';
import { gitShow } from './gitShow.js';
import { gitStash } from './gitStash.js';
import { gitStashList } from './gitStashList.js';
import { gitStatus } from './gitStatus.js';
import { gitTag } from './gitTag.js';

/** Every tool reports file-system refusals as tool errors (./fsRefusals.ts). */
function guarded<T extends readonly { handler: (...args: never[]) => unknown }[]>(tools: T): T {
  return tools.map((t) => withFsRefusals(t)) as unknown as T;
}

/** The reference's 12 tools, in its `tools/list` order. */
export const referenceTools = guarded([
  gitStatus,
  gitDiffUnstaged,
  gitDiffStaged,
  gitDiff,
  gitCommit,
  gitAdd,
  gitReset,
  gitLog,
  gitCreateBranch,
  gitCheckout,
  gitShow,
  gitBranch,
]);

/** Local tools beyond the reference, always offered. */
export const extraTools = guarded([gitBlame, gitTag, gitStashList, gitStash, gitRemote, gitMerge, gitRestore]);

/** Offered with `--allow-init` only. */
export const initTools = guarded([gitInit]);

/** Offered with `--allow-remote` only. */
export const remoteTools = guarded([gitFetch, gitPull, gitPush]);
