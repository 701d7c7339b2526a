import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';

const WEATHER = {
  'New York': { temperature: 33, conditions: 'Cloudy', humidity: 82 },
  Chicago: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 },
  'Los Angeles': { temperature: 73, conditions: 'Sunny / Clear', humidity: 48 },
} as const;

export const getStructuredContent = defineTool({
  name: 'get-structured-content',
  title: 'Get Structured Content Tool',
  description: 'Returns structured content along with an output schema for client data validation',
  input: { location: z.enum(['New York', 'Chicago', 'Los Angeles']).describe('Choose city') },
  output: {
    temperature: z.number().describe('Temperature in celsius'),
    conditions: z.string().describe('Weather conditions description'),
    humidity: z.number().describe('Humidity percentage'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ location }) => {
    const weather = { ...WEATHER[location] };
    // The reference's text block is compact JSON, not protocol-core's pretty-printed default.
    return { content: [{ type: 'text', text: JSON.stringify(weather) }], structuredContent: weather };
  },
});
