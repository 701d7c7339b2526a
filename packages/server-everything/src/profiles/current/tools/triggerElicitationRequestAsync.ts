import { defineTool, textResult } from '@mcpkit/protocol-core';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { CurrentSession } from '../session.js';
import { CreatedTaskSchema, pollClientTask, unfinishedText } from './clientTasks.js';

/** 10 minutes at the reference's 1 s pace: a user may take a while. */
const MAX_POLLS = 600;

const SyncElicitationSchema = z.object({ action: z.string(), content: z.any().optional() });

/** Registered only when the client declares `elicitation` and `tasks.requests.elicitation.create`. */
export const triggerElicitationRequestAsync = defineTool({
  name: 'trigger-elicitation-request-async',
  title: 'Trigger Async Elicitation Request Tool',
  description:
    'Trigger an async elicitation request that the CLIENT executes as a background task. ' +
    'Demonstrates bidirectional MCP tasks where the server sends an elicitation request and ' +
    'the client handles user input asynchronously, allowing the server to poll for completion.',
  input: {},
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (_args, { config }: CurrentSession, extra) => {
    const response = await extra.mcpReq.send(
      {
        method: 'elicitation/create',
        params: {
          task: { ttl: 600_000 },
          message: 'Please provide inputs for the following fields (async task demo):',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { title: 'Your Name', type: 'string', description: 'Your full name' },
              favoriteColor: {
                title: 'Favorite Color',
                type: 'string',
                description: 'What is your favorite color?',
                enum: ['Red', 'Blue', 'Green', 'Yellow', 'Purple'],
              },
              agreeToTerms: { title: 'Terms Agreement', type: 'boolean', description: 'Do you agree to the terms and conditions?' },
            },
            required: ['name'],
          },
        },
      },
      z.union([CreatedTaskSchema, SyncElicitationSchema]),
    );
    if (!('task' in response)) return textResult(`[SYNC] Client executed synchronously:\n${JSON.stringify(response, null, 2)}`);
    const outcome = await pollClientTask(extra, response, {
      maxPolls: MAX_POLLS,
      pollMs: config.taskPollMs,
      scheduler: config.scheduler,
      // Only status changes, the first poll and every 10th are worth a line.
      record: (n, status) => n === 1 || n % 10 === 0 || status !== 'input_required',
    });
    if (outcome.kind !== 'completed') return textResult(unfinishedText(outcome, MAX_POLLS));
    const result = outcome.result as { action?: string; content?: Record<string, unknown> } | undefined;
    const content: CallToolResult['content'] = [];
    if (result?.action === 'accept' && result.content) {
      content.push({ type: 'text', text: '[COMPLETED] User provided the requested information!' });
      const data = result.content;
      const lines: string[] = [];
      if (data.name) lines.push(`- Name: ${data.name}`);
      if (data.favoriteColor) lines.push(`- Favorite Color: ${data.favoriteColor}`);
      if (data.agreeToTerms !== undefined) lines.push(`- Agreed to terms: ${data.agreeToTerms}`);
      content.push({ type: 'text', text: `User inputs:\n${lines.join('\n')}` });
    } else if (result?.action === 'decline') {
      content.push({ type: 'text', text: '[DECLINED] User declined to provide the requested information.' });
    } else if (result?.action === 'cancel') {
      content.push({ type: 'text', text: '[CANCELLED] User cancelled the elicitation dialog.' });
    }
    content.push({ type: 'text', text: `\nProgress:\n${outcome.history.join('\n')}\n\nRaw result: ${JSON.stringify(result, null, 2)}` });
    return { content };
  },
});
