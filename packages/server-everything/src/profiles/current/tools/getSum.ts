import { defineTool, textResult } from '@mcpkit/protocol-core';
import { z } from 'zod';

export const getSum = defineTool({
  name: 'get-sum',
  title: 'Get Sum Tool',
  description: 'Returns the sum of two numbers',
  input: { a: z.number().describe('First number'), b: z.number().describe('Second number') },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ a, b }) => textResult(`The sum of ${a} and ${b} is ${a + b}.`),
});
