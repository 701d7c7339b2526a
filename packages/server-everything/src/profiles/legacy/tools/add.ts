import { z } from 'zod';
import { defineLegacyTool, objectSchema } from './types.js';

export const add = defineLegacyTool({
  name: 'add',
  title: 'Add',
  description: 'Adds two numbers',
  inputSchema: objectSchema({ a: { type: 'number', description: 'First number' }, b: { type: 'number', description: 'Second number' } }, [
    'a',
    'b',
  ]),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  args: z.object({ a: z.number(), b: z.number() }),
  call: ({ a, b }) => ({ content: [{ type: 'text', text: `The sum of ${a} and ${b} is ${a + b}.` }] }),
});
