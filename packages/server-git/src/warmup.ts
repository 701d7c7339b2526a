/**
 * The CLI's background warm-up. Clients connect, list the tools, and call one seconds later; the first call
 * of a fresh process used to pay for compiling the engine chunk (isomorphic-git included), zod's first
 * validations and the repository's first read. Once the server has been quiet for `idleMs` after a session
 * opened (no `notifications/initialized`, `tools/list` or call since), this does that work ahead: it loads
 * the engine, reads each `--repository` (or each repository in a folder given there) through the operations
 * the tools run (../engine/warm.ts), which keep what they read in the shared repository cache, makes a few
 * calls (`git_status`, `git_log`, `git_branch`, `git_status` again, within WARM_CALLS_BUDGET_MS) through a
 * throwaway server in memory (./warmCall.ts: the SDK's call path), and validates a representative input with
 * each served tool's schema.
 *
 * It only reads; it runs once per process; it gives way to the event loop between steps; a tool call
 * stops it for good (the call uses whatever is ready: a half-read repository is simply read by the call);
 * errors are logged at debug level and otherwise ignored. `--no-warmup` turns it off.
 */
import { type AnyToolDefinition, errorMessage, type Logger } from '@mcpkit/protocol-core';
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ServerActivity } from './activity.js';
import type { GitContext } from './engine/context.js';
import { loadEngine } from './tools/common.js';

/** Quiet time after the last message of the connection's opening before the warm-up starts. */
export const WARMUP_IDLE_MS = 75;

/**
 * The calls through the SDK (status, log, branch, status again) go on while they have taken less than this
 * in all: on a very large work tree one status is enough, as each runs on the event loop for its whole length.
 */
export const WARM_CALLS_BUDGET_MS = 250;

export interface WarmupOptions {
  /** What it reads with: the CLI's `--repository` roots and the repository cache every session shares. */
  ctx: GitContext;
  logger: Logger;
  /**
   * A throwaway server like the sessions' ones (the same tools and roots, no `activity`): one `git_status` call
   * goes through it in memory (./warmCall.ts), which runs the SDK's call path once.
   */
  createServer?: () => McpServer;
  idleMs?: number;
}

export interface Warmup extends ServerActivity {
  /** Stops it (the server is shutting down); a step under way finishes, nothing more starts. */
  stop(): void;
}

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Each tool's input schema (as registered) parses a representative input, and each warmed answer its output shape. */
async function warmSchemas(
  tools: ReadonlyArray<AnyToolDefinition<GitContext>>,
  repoPath: string,
  answers: Record<string, Record<string, unknown> | undefined>,
  stopped: () => boolean,
): Promise<void> {
  for (const tool of tools) {
    if (stopped()) return;
    const input = tool.input instanceof z.ZodObject ? tool.input : z.object(tool.input);
    input.safeParse({ repo_path: repoPath });
    const answer = answers[tool.name];
    if (tool.output && answer) z.object(tool.output).safeParse(answer);
    await yieldToRequests();
  }
}

export function createWarmup({ ctx, logger, createServer, idleMs = WARMUP_IDLE_MS }: WarmupOptions): Warmup {
  let state: 'waiting' | 'running' | 'over' = 'waiting';
  let stoppedBy: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let tools: ReadonlyArray<AnyToolDefinition<GitContext>> = [];

  function end(why: string) {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (state === 'waiting') logger.debug(`warm-up: not started (${why})`);
    if (state === 'running') stoppedBy = why;
    state = 'over';
  }

  function schedule() {
    if (state !== 'waiting') return;
    if (timer) timer.refresh();
    else {
      timer = setTimeout(() => void run(), idleMs);
      timer.unref();
    }
  }

  async function run() {
    timer = undefined;
    if (state !== 'waiting') return;
    state = 'running';
    const stopped = () => state !== 'running';
    const t0 = performance.now();
    const done: string[] = [];
    logger.debug('warm-up: started');
    try {
      const engine = await loadEngine();
      done.push('engine loaded');
      await yieldToRequests();
      const warmed = stopped()
        ? []
        : await engine.warmRepositories(ctx, stopped, (path, error) => logger.debug(`warm-up: ${path} skipped: ${errorMessage(error)}`));
      if (warmed.length > 0)
        done.push(`${warmed.length} repositor${warmed.length === 1 ? 'y' : 'ies'} read (${warmed.map((w) => w.path).join(', ')})`);
      const first = warmed[0];
      if (first && createServer && !stopped()) {
        const { callInMemory } = await import('./warmCall.js');
        const repo_path = first.path;
        const since = performance.now();
        const answers = await callInMemory(
          createServer(),
          [
            { name: 'git_status', arguments: { repo_path } },
            { name: 'git_log', arguments: { repo_path, max_count: 10 } },
            { name: 'git_branch', arguments: { repo_path, branch_type: 'local' } },
            // Once more: the status loop over the index is what a first call most often runs, and V8 optimises it on its second run.
            { name: 'git_status', arguments: { repo_path } },
          ],
          () => !stopped() && performance.now() - since < WARM_CALLS_BUDGET_MS,
        );
        done.push(`${answers.length} call${answers.length === 1 ? '' : 's'} through the SDK`);
        await yieldToRequests();
      }
      if (!stopped()) {
        await warmSchemas(tools, first?.path ?? '.', first?.results ?? {}, stopped);
        if (!stopped()) done.push('schemas');
      }
    } catch (error) {
      logger.debug(`warm-up: failed: ${errorMessage(error)}`);
    }
    const ms = Math.round(performance.now() - t0);
    const what = done.join('; ') || 'nothing';
    if (stoppedBy) logger.debug(`warm-up: stopped by ${stoppedBy} after ${ms} ms (done: ${what})`);
    else logger.debug(`warm-up: done in ${ms} ms (${what})`);
    state = 'over';
  }

  return {
    opened(served) {
      if (tools.length === 0) tools = served;
      schedule();
    },
    seen: schedule,
    callStarted() {
      if (state !== 'over') end('a tool call');
      return () => {};
    },
    stop: () => end('shutdown'),
  };
}
