/**
 * The read-ahead (./preload.ts runs it once the engine is loaded): for each `--repository` that is a work
 * tree, or the first READ_AHEAD_MAX work trees (by name) of one that is a folder of them, what a client's
 * first calls read — the status, the last 100 commits, the local branches and the unstaged patch — through
 * the engine's own API (`openRepository`). Their data is dropped; what stays is what the tools' calls then
 * find ready: the repository's caches (the index, pack indexes, trees and commits, bounded by --cache-size:
 * ../engine/repoCache.ts), the lstat helper thread, and those paths compiled. It only reads: nothing is
 * written. One operation at a time, giving way to the event loop before each, so a call that arrives
 * meanwhile waits for at most one of them.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, type Logger } from '@mcpkit/protocol-core';
import type { GitContext } from './engine/context.js';
import type { Repository } from './engine/repository.js';

/** A folder of repositories: at most this many of its work trees are read ahead. */
export const READ_AHEAD_MAX = 8;

/** What the engine module gives the read-ahead (../engine/index.ts). */
export interface ReadAheadEngine {
  openRepository(ctx: GitContext, path: string): Promise<Repository>;
}

const STEPS: readonly [string, (repo: Repository) => Promise<unknown>][] = [
  ['status', (repo) => repo.status()],
  ['log', (repo) => repo.log({ max_count: 100 })],
  ['branches', (repo) => repo.branches({ branch_type: 'local' })],
  ['diff_unstaged', (repo) => repo.diffUnstaged()],
];

const giveWay = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A root itself when it is a work tree, else its first sub-folders (by name) that are. Links are not followed. */
async function workTrees(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  if (entries.some((e) => e.name === '.git')) return [root];
  const trees: string[] = [];
  for (const name of entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort()) {
    if (trees.length === READ_AHEAD_MAX) break;
    const inner: string[] = await readdir(join(root, name)).catch(() => []);
    if (inner.includes('.git')) trees.push(join(root, name));
  }
  return trees;
}

/** Reads each repository under `ctx.roots` ahead; a repository that cannot be read (no commits yet, …) is skipped, said at debug level. */
export async function readAhead(engine: ReadAheadEngine, ctx: GitContext, logger: Logger): Promise<void> {
  const roots = await ctx.roots.list();
  const trees = (await Promise.all(roots.map(workTrees))).flat().slice(0, READ_AHEAD_MAX);
  for (const path of trees) {
    const t0 = performance.now();
    try {
      await giveWay();
      const repo = await engine.openRepository(ctx, path);
      for (const [, step] of STEPS) {
        await giveWay();
        await step(repo);
      }
      logger.debug(`warm-up: read ${path} ahead in ${Math.round(performance.now() - t0)} ms`);
    } catch (error) {
      logger.debug(`warm-up: ${path} not read ahead: ${errorMessage(error)}`);
    }
  }
}
