import { defineTool } from '@mcpkit/protocol-core';
import { MCP_TINY_IMAGE } from '../../../shared/mcpTinyImage.js';
import { objectSchema } from './objectSchema.js';

export const getTinyImage = defineTool({
  name: 'getTinyImage',
  title: 'Get Tiny Image',
  description: 'Returns the MCP_TINY_IMAGE',
  input: {},
  listing: { inputSchema: objectSchema({}) },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: () => ({
    content: [
      { type: 'text', text: 'This is a tiny image:' },
      { type: 'image', data: MCP_TINY_IMAGE, mimeType: 'image/png' },
      { type: 'text', text: 'The image above is the MCP tiny image.' },
    ],
  }),
});
