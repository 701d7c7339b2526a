import { defineTool, servesStatelessRequest, statelessCapabilities, ToolError } from '@mcpkit/protocol-core';
import type { ElicitRequest } from '@modelcontextprotocol/server';
import { elicitationReply } from '../../../shared/elicitationReply.js';
import type { LegacySession } from '../session.js';
import { objectSchema } from './objectSchema.js';

/** The elicitation request, exactly as the reference sends it (with `petType`'s legacy `enumNames`). */
const ELICITATION_REQUEST = {
  method: 'elicitation/create',
  params: {
    message: 'Please provide inputs for the following fields:',
    requestedSchema: {
      type: 'object',
      properties: {
        name: { title: 'Full Name', type: 'string', description: 'Your full, legal name' },
        check: { title: 'Agree to terms', type: 'boolean', description: 'A boolean check' },
        color: { title: 'Favorite Color', type: 'string', description: 'Favorite color (open text)', default: 'blue' },
        email: {
          title: 'Email Address',
          type: 'string',
          format: 'email',
          description: 'Your email address (will be verified, and never shared with anyone else)',
        },
        homepage: { type: 'string', format: 'uri', description: 'Homepage / personal site' },
        birthdate: {
          title: 'Birthdate',
          type: 'string',
          format: 'date',
          description: 'Your date of birth (will never be shared with anyone else)',
        },
        integer: {
          title: 'Favorite Integer',
          type: 'integer',
          description: 'Your favorite integer (do not give us your phone number, pin, or other sensitive info)',
          minimum: 1,
          maximum: 100,
          default: 42,
        },
        number: {
          title: 'Favorite Number',
          type: 'number',
          description: 'Favorite number (there are no wrong answers)',
          minimum: 0,
          maximum: 1000,
          default: 3.14,
        },
        petType: {
          title: 'Pet type',
          type: 'string',
          enum: ['cats', 'dogs', 'birds', 'fish', 'reptiles'],
          enumNames: ['Cats', 'Dogs', 'Birds', 'Fish', 'Reptiles'],
          default: 'dogs',
          description: 'Your favorite pet type',
        },
      },
      required: ['name'],
    },
  },
} satisfies ElicitRequest;

/** The user has 10 minutes to fill in the form (the reference's timeout). */
const ELICITATION_TIMEOUT_MS = 10 * 60 * 1000;

export const startElicitation = defineTool({
  name: 'startElicitation',
  title: 'Start Elicitation',
  description:
    'Elicitation test tool that demonstrates how to request user input with various field types (string, boolean, email, uri, date, integer, number, enum)',
  input: {},
  listing: { inputSchema: objectSchema({}), listedFor: 'elicitation' },
  // Asks this client's user and reports the answer; nothing changes.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_args, session: LegacySession, extra) {
    if (servesStatelessRequest(session.server)) throw new ToolError(statelessCapabilities('elicitation'));
    if (!session.input.capabilities(extra).elicitation) {
      throw new ToolError(
        'startElicitation needs a client that supports elicitation; this client did not declare the elicitation capability',
      );
    }
    const signal = AbortSignal.any([extra.mcpReq.signal, session.closed]);
    const input = await session.input.ask(
      extra,
      'startElicitation',
      {},
      { form: ELICITATION_REQUEST },
      { timeout: ELICITATION_TIMEOUT_MS, signal },
    );
    if ('inputRequired' in input) return input.inputRequired;
    return { content: elicitationReply(input.answers.form) };
  },
});
