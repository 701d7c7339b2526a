import { defineTool, textResult } from '@mcpkit/protocol-core';
import { CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ConformanceSession } from '../session.js';
import { requireClientCapability } from './clientFeatures.js';

/** Scenario `tools-call-sampling`: asks the client's LLM (`sampling/createMessage`, 100 tokens at most). */
export const testSampling = defineTool({
  name: 'test_sampling',
  title: 'Sampling',
  description: 'Tests server-initiated sampling (LLM completion request): sends the prompt to the client and returns its answer',
  input: { prompt: z.string().describe('The prompt to send to the LLM') },
  // Changes nothing here, but the client's LLM answers differently each time.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async ({ prompt }, session: ConformanceSession, extra) => {
    requireClientCapability(session, 'sampling');
    const result = await extra.sendRequest(
      {
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 },
      },
      CreateMessageResultSchema,
    );
    const answer = result.content.type === 'text' ? result.content.text : `[${result.content.type} content from ${result.model}]`;
    return textResult(`LLM response: ${answer}`);
  },
});
