import { defineTool, structuredResult, ToolError } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { $PASCAL$Context } from '../context.js';

export const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Sends the message back, repeated `times` times (once by default) and joined by a space.',
  input: {
    message: z.string().min(1).describe('The text to send back'),
    times: z.number().int().min(1).max(10).optional().describe('How many times to repeat it (1-10, default 1)'),
  },
  output: {
    text: z.string().describe('The message, repeated'),
    characters: z.number().int().describe('Length of `text` in characters'),
  },
  // It only computes a string from its input: read-only, same answer every time, no outside world.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ message, times = 1 }, { maxMessageLength }: $PASCAL$Context) => {
    // A limit that comes from configuration can't live in the static schema: check it here and throw a
    // ToolError, which reaches the model verbatim as an isError result.
    if (message.length > maxMessageLength) {
      throw new ToolError(`message is ${message.length} characters long; this server accepts at most ${maxMessageLength}`);
    }
    const text = Array.from({ length: times }, () => message).join(' ');
    return structuredResult({ text, characters: text.length }, text);
  },
});
