import { defineTool, textResult } from '@mcpkit/protocol-core';
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
    requireClientCapability(session, 'sampling', extra);
    const params = { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt } }], maxTokens: 100 };
    const input = await session.input.ask(extra, 'test_sampling', { prompt }, { llm: { method: 'sampling/createMessage', params } });
    if ('inputRequired' in input) return input.inputRequired;
    const result = input.answers.llm;
    const answer = result.content.type === 'text' ? result.content.text : `[${result.content.type} content from ${result.model}]`;
    return textResult(`LLM response: ${answer}`);
  },
});
