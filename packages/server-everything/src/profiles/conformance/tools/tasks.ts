import { defineTool, type RequestContext, ToolError, textResult } from '@mcpkit/protocol-core';
import { acceptedContent, type ElicitRequestFormParams, inputRequired, ProtocolError } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { sleep } from '../../../shared/scheduler.js';
import type { ConformanceSession } from '../session.js';
import { FIXED_RESULT } from './fixed.js';
import { ASKS_THE_USER } from './testElicitation.js';

/**
 * The fixtures of the suite's `tasks-*` scenarios (the tasks extension, SEP-2663): `greet` (never a task),
 * `slow_compute` and `protocol_error_job` (a task when the request opts in, inline otherwise), `failing_job`,
 * `confirm_delete`, `multi_input` (tasks only: -32021 without the extension), and `test_tool_with_task` (an MRTR
 * round first, then a task). Their waits listen to the task's signal only: a task outlives the request (and the
 * per-request server) that started it.
 */

/** Longest `slow_compute` wait, in seconds (the suite asks 60 at most). */
const MAX_SECONDS = 600;

const confirmForm = (message: string, field: string): ElicitRequestFormParams => ({
  mode: 'form',
  message,
  requestedSchema: { type: 'object', properties: { [field]: { type: 'boolean' } }, required: [field] },
});

/** An input request of a task (an elicitation), answered through `tasks/update`; the answer's `action` and `content`. */
async function ask(
  extra: RequestContext,
  params: ElicitRequestFormParams,
): Promise<{ action?: unknown; content?: Record<string, unknown> }> {
  if (!extra.task) throw new ToolError('This tool asks the user while it runs, which needs a task.');
  const answer = (await extra.task.input({ method: 'elicitation/create', params: { ...params } })) as Record<string, unknown> | null;
  return { action: answer?.action, content: (answer?.content ?? undefined) as Record<string, unknown> | undefined };
}

const greet = defineTool({
  name: 'greet',
  title: 'Greet',
  description: 'Tasks fixture: a plain tool that never runs as a task; returns "Hello, {name}!"',
  input: { name: z.string().describe('Who to greet') },
  annotations: FIXED_RESULT,
  handler: ({ name }) => textResult(`Hello, ${name}!`),
});

const slowCompute = defineTool({
  name: 'slow_compute',
  title: 'Slow Compute',
  description:
    'Tasks fixture: waits `seconds` seconds, then returns a result; runs as a task when the request declares the tasks extension. A cancelled task stops waiting.',
  input: {
    seconds: z.number().int().min(0).max(MAX_SECONDS).describe('How long to work, in seconds (0: at once)'),
    label: z.string().max(200).optional().describe('A label echoed in the result'),
  },
  annotations: FIXED_RESULT,
  task: 'optional',
  handler: async ({ seconds, label }, session: ConformanceSession, extra) => {
    for (let done = 0; done < seconds; done += 1) {
      extra.task?.progress(`Computing: ${done} of ${seconds} s`);
      await sleep(session.config.scheduler, 1000, extra.mcpReq.signal);
    }
    return textResult(`Computed${label ? ` ${label}` : ''} in ${seconds} s`);
  },
});

const failingJob = defineTool({
  name: 'failing_job',
  title: 'Failing Job',
  description: 'Tasks fixture: runs only as a task and ends, after about a second, with a tool execution error (isError).',
  input: {},
  annotations: FIXED_RESULT,
  task: 'required',
  handler: async (_args, session: ConformanceSession, extra) => {
    await sleep(session.config.scheduler, 1000, extra.mcpReq.signal);
    throw new ToolError('The job failed (failing_job always does).');
  },
});

const protocolErrorJob = defineTool({
  name: 'protocol_error_job',
  title: 'Protocol Error Job',
  description: 'Tasks fixture: fails with a JSON-RPC error (-32603), so its task ends `failed` with that error inlined.',
  input: {},
  annotations: FIXED_RESULT,
  task: 'optional',
  handler: async () => {
    throw new ProtocolError(-32603, 'Internal error: protocol_error_job fails at the protocol level');
  },
});

const confirmDelete = defineTool({
  name: 'confirm_delete',
  title: 'Confirm Delete',
  description:
    'Tasks fixture: runs only as a task; asks the user to confirm (one elicitation, task input_required) and reports the answer. Deletes nothing.',
  input: { filename: z.string().max(1000).describe('The file the question names') },
  annotations: ASKS_THE_USER,
  task: 'required',
  handler: async ({ filename }, _session: ConformanceSession, extra) => {
    const { action, content } = await ask(extra, confirmForm(`Delete ${filename}?`, 'confirm'));
    const yes = action === 'accept' && content?.confirm === true;
    return textResult(yes ? `Confirmed: ${filename} would be deleted (nothing is).` : `Kept ${filename} (${String(action)}).`);
  },
});

const multiInput = defineTool({
  name: 'multi_input',
  title: 'Multi Input',
  description: 'Tasks fixture: runs only as a task; asks two questions at once (two input requests outstanding) and reports both answers.',
  input: {},
  annotations: ASKS_THE_USER,
  task: 'required',
  handler: async (_args, _session: ConformanceSession, extra) => {
    const name = { ...confirmForm('What is your name?', 'name') };
    name.requestedSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    const [first, second] = await Promise.all([ask(extra, name), ask(extra, confirmForm('Proceed?', 'confirm'))]);
    return textResult(`Name: ${String(first.content?.name ?? first.action)}; proceed: ${String(second.content?.confirm ?? second.action)}`);
  },
});

/** Scenario `tasks-mrtr-composition`: the name through MRTR (round 1), then a task (round 2) whose result names it. */
const testToolWithTask = defineTool({
  name: 'test_tool_with_task',
  title: 'MRTR, then a Task',
  description:
    'Tasks fixture: asks for user_name with an input_required result (MRTR), then answers the retry with a task whose result greets that name.',
  input: {},
  annotations: ASKS_THE_USER,
  handler: async (_args, session: ConformanceSession, extra) => {
    const name = acceptedContent<{ name: string }>(extra.mcpReq.inputResponses, 'user_name')?.name;
    if (typeof name !== 'string') {
      return inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({
            message: 'What is your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          }),
        },
      });
    }
    if (!session.tasks.optedIn(extra)) throw new ToolError('test_tool_with_task runs only as a task (io.modelcontextprotocol/tasks).');
    return (await session.tasks.start(extra, async () => textResult(`Hello, ${name}! (from a task)`))) as never;
  },
});

export const taskTools = [greet, slowCompute, failingJob, protocolErrorJob, confirmDelete, multiInput, testToolWithTask] as const;
