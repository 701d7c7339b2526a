import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { ConformanceSession } from '../session.js';
import { elicitForm } from './clientFeatures.js';

/** Elicitation tools change nothing here, but a person answers, differently each time. */
export const ASKS_THE_USER = { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true } as const;

/** Scenario `tools-call-elicitation`: asks the user for a username and an email address. */
export const testElicitation = defineTool({
  name: 'test_elicitation',
  title: 'Elicitation',
  description: 'Tests server-initiated elicitation (user input request): asks the user for a username and an email address',
  input: { message: z.string().describe('The message to show the user') },
  annotations: ASKS_THE_USER,
  handler: async ({ message }, session: ConformanceSession, extra) =>
    elicitForm(
      session,
      extra,
      'test_elicitation',
      {
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      },
      'User response',
    ),
});
