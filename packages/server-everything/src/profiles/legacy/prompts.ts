import { setRawRequestHandler } from '@mcpkit/protocol-core/low-level';
import { GetPromptRequestSchema, ListPromptsRequestSchema } from '@modelcontextprotocol/core';
import type { McpServer } from '@modelcontextprotocol/server';
import { MCP_TINY_IMAGE } from '../../shared/mcpTinyImage.js';
import { RESOURCE_COUNT, STATIC_RESOURCES } from './resources.js';

/** `prompts/list`, exactly (no titles: the reference has none and clients show the name). */
const PROMPTS = [
  { name: 'simple_prompt', description: 'A prompt without arguments' },
  {
    name: 'complex_prompt',
    description: 'A prompt with arguments',
    arguments: [
      { name: 'temperature', description: 'Temperature setting', required: true },
      { name: 'style', description: 'Output style', required: false },
    ],
  },
  {
    name: 'resource_prompt',
    description: 'A prompt that includes an embedded resource reference',
    arguments: [{ name: 'resourceId', description: 'Resource ID to include (1-100)', required: true }],
  },
];

/**
 * The three prompts. As in the reference, required arguments are not enforced (`complex_prompt` prints
 * `undefined` for a missing one) and failures are JSON-RPC errors (-32603) with the reference's texts.
 */
export function setPromptHandlers(server: McpServer): void {
  setRawRequestHandler(server, ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  setRawRequestHandler(server, GetPromptRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    switch (name) {
      case 'simple_prompt':
        return { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } }] };
      case 'complex_prompt':
        return {
          messages: [
            {
              role: 'user',
              content: {
                type: 'text',
                text: `This is a complex prompt with arguments: temperature=${args?.temperature}, style=${args?.style}`,
              },
            },
            {
              role: 'assistant',
              content: {
                type: 'text',
                text: "I understand. You've provided a complex prompt with temperature and style arguments. How would you like me to proceed?",
              },
            },
            { role: 'user', content: { type: 'image', data: MCP_TINY_IMAGE, mimeType: 'image/png' } },
          ],
        };
      case 'resource_prompt': {
        const raw = args?.resourceId;
        const id = Number.parseInt(raw ?? '', 10);
        if (Number.isNaN(id) || id < 1 || id > RESOURCE_COUNT) {
          throw new Error(`Invalid resourceId: ${raw}. Must be a number between 1 and 100.`);
        }
        return {
          messages: [
            {
              role: 'user',
              content: { type: 'text', text: `This prompt includes Resource ${id}. Please analyze the following resource:` },
            },
            { role: 'user', content: { type: 'resource', resource: STATIC_RESOURCES[id - 1] } },
          ],
        };
      }
      default:
        throw new Error(`Unknown prompt: ${name}`);
    }
  });
}
