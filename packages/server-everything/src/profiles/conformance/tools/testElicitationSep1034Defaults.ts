import { defineTool } from '@mcpkit/protocol-core';
import type { ConformanceSession } from '../session.js';
import { elicitForm } from './clientFeatures.js';
import { ASKS_THE_USER } from './testElicitation.js';

/** Scenario `elicitation-sep1034-defaults`: a form with a default for every primitive type (SEP-1034). */
export const testElicitationSep1034Defaults = defineTool({
  name: 'test_elicitation_sep1034_defaults',
  title: 'Elicitation With Defaults (SEP-1034)',
  description: 'Tests elicitation with default values per SEP-1034: a string, integer, number, enum and boolean field, each with a default',
  input: {},
  annotations: ASKS_THE_USER,
  handler: async (_args, session: ConformanceSession, extra) =>
    elicitForm(
      session,
      extra,
      'test_elicitation_sep1034_defaults',
      {
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        },
      },
      'Elicitation completed',
    ),
});
