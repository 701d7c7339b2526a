import { defineTool, textResult } from '@mcpkit/protocol-core';
import { CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

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
  handler: async ({ prompt, maxTokens }, _ctx, extra) => {
    const result = await extra.sendRequest(
      {
        method: 'sampling/createMessage',
        params: {
          messages: [{ role: 'user', content: { type: 'text', text: `Resource trigger-sampling-request context: ${prompt}` } }],
          systemPrompt: 'You are a helpful test server.',
          maxTokens,
          temperature: 0.7,
        },
      },
      CreateMessageResultSchema,
    );
    return textResult(`LLM sampling result: \n${JSON.stringify(result, null, 2)}`);
  },
});
