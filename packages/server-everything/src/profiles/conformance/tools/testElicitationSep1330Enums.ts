import { defineTool } from '@mcpkit/protocol-core';
import type { ConformanceSession } from '../session.js';
import { elicitForm } from './clientFeatures.js';
import { ASKS_THE_USER } from './testElicitation.js';

/** Scenario `elicitation-sep1330-enums`: one field of each of the five enum forms of SEP-1330. */
export const testElicitationSep1330Enums = defineTool({
  name: 'test_elicitation_sep1330_enums',
  title: 'Elicitation With Enums (SEP-1330)',
  description:
    'Tests elicitation with enum schema improvements per SEP-1330: untitled and titled single-select, legacy enumNames, untitled and titled multi-select',
  input: {},
  annotations: ASKS_THE_USER,
  handler: async (_args, session: ConformanceSession, extra) =>
    elicitForm(
      session,
      extra,
      'test_elicitation_sep1330_enums',
      {
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              description: 'Select one option with titles',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              description: 'Select one option (legacy)',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              description: 'Select multiple options',
              minItems: 1,
              maxItems: 3,
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              description: 'Select multiple options with titles',
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
          required: [],
        },
      },
      'Elicitation completed',
    ),
});
