/**
 * Token estimates for tool definitions. No tokenizer is bundled: the agent talks to any
 * OpenAI-compatible model, and each model family has its own vocabulary, so an exact count for one
 * would be wrong for the others. The estimate is the usual rule of thumb, one token per 4
 * characters of the JSON the provider sends (OpenAI's own guidance for English text; JSON schemas,
 * with their punctuation and short keys, come out at 3 to 4 characters per token, so this errs
 * low by up to a quarter). It is used for a threshold and a comparison, where that is enough.
 */
import type { ToolSpec } from '../types.js';

/** Characters per token in the estimate. */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The tools as a chat-completions request carries them (`tools: [{ type, function }]`), estimated. */
export function estimateToolTokens(tools: readonly ToolSpec[]): number {
  const wire = tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
  return tools.length === 0 ? 0 : estimateTokens(JSON.stringify(wire));
}
