import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { objectSchema } from './objectSchema.js';

export const add = defineTool({
  name: 'add',
  title: 'Add',
  description: 'Adds two numbers',
  input: { a: z.number(), b: z.number() },
  listing: {
    inputSchema: objectSchema({ a: { type: 'number', description: 'First number' }, b: { type: 'number', description: 'Second number' } }, [
      'a',
      'b',
    ]),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ a, b }) => ({ content: [{ type: 'text', text: `The sum of ${a} and ${b} is ${a + b}.` }] }),
});
