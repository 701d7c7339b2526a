import { defineTool, textResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { type CurrentSession, clientInputOf } from '../session.js';

/** Registered only when the client declares `sampling`. */
export const triggerSamplingRequest = defineTool({
  name: 'trigger-sampling-request',
  title: 'Trigger Sampling Request Tool',
  description: 'Trigger a Request from the Server for LLM Sampling',
  input: {
    prompt: z.string().describe('The prompt to send to the LLM'),
    maxTokens: z.number().default(100).describe('Maximum number of tokens to generate'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async ({ prompt, maxTokens }, session: CurrentSession, extra) => {
    const params = {
      messages: [
        { role: 'user' as const, content: { type: 'text' as const, text: `Resource trigger-sampling-request context: ${prompt}` } },
      ],
      systemPrompt: 'You are a helpful test server.',
      maxTokens,
      temperature: 0.7,
    };
    const input = await clientInputOf(session).ask(
      extra,
      'trigger-sampling-request',
      { prompt, maxTokens },
      {
        llm: { method: 'sampling/createMessage', params },
      },
    );
    if ('inputRequired' in input) return input.inputRequired;
    return textResult(`LLM sampling result: \n${JSON.stringify(input.answers.llm, null, 2)}`);
  },
});
