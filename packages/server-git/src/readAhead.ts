/**
 * The read-ahead (./preload.ts runs it once the engine is loaded): for each `--repository` that is a work
 * tree, or the first READ_AHEAD_MAX work trees (by name) of one that is a folder of them, what a client's
 * first calls read and answer — the status, the last 100 commits, the local branches, the unstaged patch and
 * HEAD's commit when it is small — through the engine's own API (`openRepository`), each answer built by its
 * tool's own answer code and checked against the tool's output schema, its arguments against its input schema
 * (the very schema objects the SDK checks a call with: protocol-core's `toolSchemas`). The answers are dropped;
 * what stays is what the tools' calls then find ready: the repository's caches (the index, pack indexes, trees
 * and commits, bounded by --cache-size: ../engine/repoCache.ts), the lstat helper thread, those paths compiled
 * and the schemas' parsers built. It only reads: nothing is written, no call goes through the SDK. One
 * operation at a time, giving way to the event loop before each, so a call that arrives meanwhile waits for
 * at most one of them.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, type Logger, toolSchemas } from '@mcpkit/protocol-core';
import type { z } from 'zod';
import type { GitContext } from './engine/context.js';
import type { Repository } from './engine/repository.js';
import { branchAnswer, gitBranch } from './tools/gitBranch.js';
import { gitDiffUnstaged } from './tools/gitDiffUnstaged.js';
import { gitLog, logAnswer } from './tools/gitLog.js';
import { gitShow, showAnswer } from './tools/gitShow.js';
import { gitStatus, statusAnswer } from './tools/gitStatus.js';
import { diffAnswer } from './tools/patchAnswer.js';

/** A folder of repositories: at most this many of its work trees are read ahead. */
export const READ_AHEAD_MAX = 8;

/** HEAD's commit is shown ahead only when it changes at most this many files of at most this many bytes in all. */
export const SHOW_AHEAD_WITHIN = { files: 64, bytes: 1024 * 1024 };

/** What the engine module gives the read-ahead (../engine/index.ts). */
export interface ReadAheadEngine {
  openRepository(ctx: GitContext, path: string): Promise<Repository>;
}

interface Step {
  /** The tool whose first call this reads ahead: its schemas are the ones checked. */
  tool: { name: string; input: z.ZodRawShape | z.ZodObject; output?: z.ZodRawShape | undefined };
  /** The call's arguments beside `repo_path`, as a client's first call passes them. */
  args: Record<string, unknown>;
  /** Reads through the engine and builds the tool's answer, as its handler does. */
  read: (repo: Repository) => Promise<{ structuredContent?: Record<string, unknown> }>;
  /** A step that may be left out (HEAD too large to show ahead): said at debug level, the repository still counts as read. */
  optional?: true;
}

const STEPS: readonly Step[] = [
  { tool: gitStatus, args: {}, read: async (repo) => statusAnswer(await repo.status()) },
  { tool: gitLog, args: { max_count: 100 }, read: async (repo) => logAnswer(await repo.log({ max_count: 100 })) },
  {
    tool: gitBranch,
    args: { branch_type: 'local' },
    read: async (repo) => branchAnswer((await repo.branches({ branch_type: 'local' })) ?? []),
  },
  { tool: gitDiffUnstaged, args: {}, read: async (repo) => diffAnswer('Unstaged changes', await repo.diffUnstaged()) },
  {
    tool: gitShow,
    args: { revision: 'HEAD' },
    read: async (repo) => showAnswer(await repo.show({ revision: 'HEAD', within: SHOW_AHEAD_WITHIN })),
    optional: true,
  },
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

/** One step on one repository: the arguments and the answer through the tool's schemas; false when the answer does not fit its schema. */
async function readStep(step: Step, repo: Repository, path: string): Promise<boolean> {
  const { input, output } = toolSchemas(step.tool);
  // The arguments are fixed and valid: parsed so that the schema's parser is built, as the SDK's first call would.
  input.safeParse({ repo_path: path, ...step.args });
  const answer = await step.read(repo);
  return !output || output.safeParse(answer.structuredContent).success;
}

/**
 * Reads each repository under `ctx.roots` ahead; a repository that cannot be read (no commits yet, …) is
 * skipped, said at debug level, as is an optional step left out and an answer that does not fit its schema.
 */
export async function readAhead(engine: ReadAheadEngine, ctx: GitContext, logger: Logger): Promise<void> {
  const roots = await ctx.roots.list();
  const trees = (await Promise.all(roots.map(workTrees))).flat().slice(0, READ_AHEAD_MAX);
  for (const path of trees) {
    const t0 = performance.now();
    try {
      await giveWay();
      const repo = await engine.openRepository(ctx, path);
      const done: string[] = [];
      for (const step of STEPS) {
        await giveWay();
        try {
          if (!(await readStep(step, repo, path)))
            logger.debug(`warm-up: ${step.tool.name}'s answer for ${path} does not fit its output schema`);
          done.push(step.tool.name);
        } catch (error) {
          if (!step.optional) throw error;
          logger.debug(`warm-up: ${path}: ${step.tool.name} not read ahead: ${errorMessage(error)}`);
        }
      }
      logger.debug(`warm-up: read ${path} ahead (${done.join(', ')}) in ${Math.round(performance.now() - t0)} ms`);
    } catch (error) {
      logger.debug(`warm-up: ${path} not read ahead: ${errorMessage(error)}`);
    }
  }
}
