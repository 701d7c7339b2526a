import { defineTool, textResult } from '@mcpkit/protocol-core';
import { z } from 'zod';

export const echo = defineTool({
  name: 'echo',
  title: 'Echo Tool',
  description: 'Echoes back the input string',
  input: { message: z.string().describe('Message to echo') },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ message }) => textResult(`Echo: ${message}`),
});
