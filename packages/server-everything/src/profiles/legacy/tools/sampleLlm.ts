import { defineTool, servesStatelessRequest, statelessCapabilities, ToolError } from '@mcpkit/protocol-core';
import type { CreateMessageRequest, CreateMessageResultWithTools } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { LegacySession } from '../session.js';
import { objectSchema } from './objectSchema.js';

/** The sampling request, exactly as the reference sends it (`uri` is the tool's name). */
function samplingRequest(prompt: string, maxTokens: number): CreateMessageRequest {
  return {
    method: 'sampling/createMessage',
    params: {
      messages: [{ role: 'user', content: { type: 'text', text: `Resource sampleLLM context: ${prompt}` } }],
      systemPrompt: 'You are a helpful test server.',
      maxTokens,
      temperature: 0.7,
      includeContext: 'thisServer',
    },
  };
}

/**
 * The reply's text: text blocks as they are, anything else as JSON, a list of blocks joined (as the
 * reference's source did from 2025-11-26; npm 2025.11.25 printed `undefined` for anything but one text block).
 */
function replyText(content: CreateMessageResultWithTools['content']): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((block) => (block.type === 'text' ? block.text : JSON.stringify(block))).join('');
}

export const sampleLlm = defineTool({
  name: 'sampleLLM',
  title: 'Sample LLM',
  description: "Samples from an LLM using MCP's sampling feature",
  input: { prompt: z.string(), maxTokens: z.number().default(100) },
  listing: {
    inputSchema: objectSchema(
      {
        prompt: { type: 'string', description: 'The prompt to send to the LLM' },
        maxTokens: { type: 'number', default: 100, description: 'Maximum number of tokens to generate' },
      },
      ['prompt'],
    ),
  },
  // Changes nothing, but the client may hand the prompt to a hosted model: open world.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async handler({ prompt, maxTokens }, session: LegacySession, extra) {
    if (servesStatelessRequest(session.server)) throw new ToolError(statelessCapabilities('sampling'));
    if (!session.input.capabilities(extra).sampling) {
      throw new ToolError('sampleLLM needs a client that supports sampling; this client did not declare the sampling capability');
    }
    const { params } = samplingRequest(prompt, maxTokens);
    const signal = AbortSignal.any([extra.mcpReq.signal, session.closed]);
    const input = await session.input.ask(
      extra,
      'sampleLLM',
      { prompt, maxTokens },
      { llm: { method: 'sampling/createMessage', params, tools: true } },
      { signal },
    );
    if ('inputRequired' in input) return input.inputRequired;
    const result = input.answers.llm;
    return { content: [{ type: 'text', text: `LLM sampling result: ${replyText(result.content)}` }] };
  },
});
