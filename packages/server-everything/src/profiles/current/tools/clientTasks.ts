import type { RequestContext } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { Scheduler } from '../../../shared/scheduler.js';
import { sleep } from '../session.js';

/** What a client answers to a task-augmented request: a created task, or (a client that ran it at once) the result. */
export const CreatedTaskSchema = z.object({
  task: z.object({ taskId: z.string(), status: z.string(), pollInterval: z.number().optional(), statusMessage: z.string().optional() }),
});

const TaskStatusSchema = z.looseObject({ status: z.string(), statusMessage: z.string().optional() });

export type PollOutcome =
  | { kind: 'timeout'; history: string[] }
  | { kind: 'failed' | 'cancelled'; message: string | undefined; history: string[] }
  | { kind: 'completed'; result: unknown; history: string[] };

export interface PollOptions {
  maxPolls: number;
  pollMs: number;
  /** The session's timers (`config.scheduler`). */
  scheduler: Scheduler;
  /** Whether poll `n` with `status` goes into the history (the async elicitation skips most `input_required` polls). */
  record?: (n: number, status: string) => boolean;
}

/**
 * Polls the client's task with `tasks/get` every `pollMs` until it is terminal or `maxPolls` is spent,
 * then fetches its result with `tasks/result`; `history` is the reference's progress lines. Stops when
 * the tool call is cancelled or the session closes (`extra.mcpReq.signal`).
 */
export async function pollClientTask(
  extra: RequestContext,
  created: z.infer<typeof CreatedTaskSchema>,
  { maxPolls, pollMs, scheduler, record = () => true }: PollOptions,
): Promise<PollOutcome> {
  const { taskId } = created.task;
  const history = [`Task created: ${taskId}`];
  let status = created.task.status;
  let message: string | undefined;
  let polls = 0;
  while (status !== 'completed' && status !== 'failed' && status !== 'cancelled' && polls < maxPolls) {
    await sleep(scheduler, pollMs, extra.mcpReq.signal);
    polls++;
    const polled = await extra.mcpReq.send({ method: 'tasks/get', params: { taskId } }, TaskStatusSchema);
    status = polled.status;
    message = polled.statusMessage;
    if (record(polls, status)) history.push(`Poll ${polls}: ${status}${message ? ` - ${message}` : ''}`);
  }
  // As the reference, spending the last poll counts as a timeout even if that poll saw the task finish.
  if (polls >= maxPolls) return { kind: 'timeout', history };
  if (status === 'failed' || status === 'cancelled') return { kind: status, message, history };
  const result = await extra.mcpReq.send({ method: 'tasks/result', params: { taskId } }, z.any());
  return { kind: 'completed', result, history };
}

/** The text of a timeout, failure or cancellation (the reference's). */
export function unfinishedText(outcome: Exclude<PollOutcome, { kind: 'completed' }>, maxPolls: number): string {
  const progress = `\n\nProgress:\n${outcome.history.join('\n')}`;
  if (outcome.kind === 'timeout') return `[TIMEOUT] Task timed out after ${maxPolls} poll attempts${progress}`;
  return `[${outcome.kind.toUpperCase()}] ${outcome.message || 'No message'}${progress}`;
}
