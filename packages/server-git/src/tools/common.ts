/** Input fields shared by the tools, with the reference's names, titles and defaults; opening a repository. */
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';

export const repoPath = z.string().meta({ title: 'Repo Path' }).describe('Path of the git work tree (its top folder)');

export const contextLines = z
  .number()
  .int()
  .min(0)
  .max(10_000)
  .default(3)
  .meta({ title: 'Context Lines' })
  .describe('Lines of context around each change, as git diff -U<n> (default 3)');

/** The four hints of a tool that only reads the repository. */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/**
 * The engine (../engine: isomorphic-git and everything that touches the repository), loaded once, on the
 * first call of any tool; Node keeps the module, so later calls get it at once. A start-up that only
 * lists the tools never loads it.
 */
export const loadEngine = () => import('../engine/index.js');

/** The repository at `repoPath`, confined to the session's roots (../engine/repository.ts), engine loaded on first use. */
export async function openRepository(ctx: GitContext, repoPath: string) {
  return (await loadEngine()).openRepository(ctx, repoPath);
}
