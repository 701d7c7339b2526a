import { defineTool, textResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { CurrentSession } from '../session.js';
import { CreatedTaskSchema, pollClientTask, unfinishedText } from './clientTasks.js';

const MAX_POLLS = 60;

const SyncSamplingSchema = z.object({ role: z.string(), content: z.any(), model: z.string(), stopReason: z.string().optional() });

/** Registered only when the client declares `sampling` and `tasks.requests.sampling.createMessage`. */
export const triggerSamplingRequestAsync = defineTool({
  name: 'trigger-sampling-request-async',
  title: 'Trigger Async Sampling Request Tool',
  description:
    'Trigger an async sampling request that the CLIENT executes as a background task. ' +
    'Demonstrates bidirectional MCP tasks where the server sends a request and the client ' +
    'executes it asynchronously, allowing the server to poll for progress and results.',
  input: {
    prompt: z.string().describe('The prompt to send to the LLM'),
    maxTokens: z.number().default(100).describe('Maximum number of tokens to generate'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async ({ prompt, maxTokens }, { config }: CurrentSession, extra) => {
    const response = await extra.mcpReq.send(
      {
        method: 'sampling/createMessage',
        params: {
          task: { ttl: 300_000 },
          messages: [{ role: 'user', content: { type: 'text', text: `Resource trigger-sampling-request-async context: ${prompt}` } }],
          systemPrompt: 'You are a helpful test server.',
          maxTokens,
          temperature: 0.7,
        },
      },
      z.union([CreatedTaskSchema, SyncSamplingSchema]),
    );
    if (!('task' in response)) return textResult(`[SYNC] Client executed synchronously:\n${JSON.stringify(response, null, 2)}`);
    const outcome = await pollClientTask(extra, response, { maxPolls: MAX_POLLS, pollMs: config.taskPollMs, scheduler: config.scheduler });
    if (outcome.kind !== 'completed') return textResult(unfinishedText(outcome, MAX_POLLS));
    return textResult(
      `[COMPLETED] Async sampling completed!\n\n**Progress:**\n${outcome.history.join('\n')}\n\n**Result:**\n${JSON.stringify(outcome.result, null, 2)}`,
    );
  },
});
