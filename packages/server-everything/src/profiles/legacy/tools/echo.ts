import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { objectSchema } from './objectSchema.js';

export const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Echoes back the input',
  input: { message: z.string() },
  listing: { inputSchema: objectSchema({ message: { type: 'string', description: 'Message to echo' } }, ['message']) },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }),
});
