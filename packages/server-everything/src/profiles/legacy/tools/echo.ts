import { z } from 'zod';
import { defineLegacyTool, objectSchema } from './types.js';

export const echo = defineLegacyTool({
  name: 'echo',
  title: 'Echo',
  description: 'Echoes back the input',
  inputSchema: objectSchema({ message: { type: 'string', description: 'Message to echo' } }, ['message']),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  args: z.object({ message: z.string() }),
  call: ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }),
});
