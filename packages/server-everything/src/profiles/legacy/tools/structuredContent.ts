import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import { objectSchema } from './objectSchema.js';

const WEATHER = { temperature: 22.5, conditions: 'Partly cloudy', humidity: 65 };

/** The same weather for every location, as in the reference; `location` is trimmed and must not be empty. */
export const structuredContent = defineTool({
  name: 'structuredContent',
  title: 'Structured Content',
  description: 'Returns structured content along with an output schema for client data validation',
  input: { location: z.string().trim().min(1) },
  listing: {
    inputSchema: objectSchema({ location: { type: 'string', minLength: 1, description: 'City name or zip code' } }, ['location']),
    outputSchema: objectSchema(
      {
        temperature: { type: 'number', description: 'Temperature in celsius' },
        conditions: { type: 'string', description: 'Weather conditions description' },
        humidity: { type: 'number', description: 'Humidity percentage' },
      },
      ['temperature', 'conditions', 'humidity'],
    ),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: () => ({ content: [{ type: 'text', text: JSON.stringify(WEATHER) }], structuredContent: { ...WEATHER } }),
});
