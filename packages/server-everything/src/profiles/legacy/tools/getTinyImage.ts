import { z } from 'zod';
import { MCP_TINY_IMAGE } from '../../../shared/mcpTinyImage.js';
import { defineLegacyTool, objectSchema } from './types.js';

export const getTinyImage = defineLegacyTool({
  name: 'getTinyImage',
  title: 'Get Tiny Image',
  description: 'Returns the MCP_TINY_IMAGE',
  inputSchema: objectSchema({}),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  args: z.object({}),
  call: () => ({
    content: [
      { type: 'text', text: 'This is a tiny image:' },
      { type: 'image', data: MCP_TINY_IMAGE, mimeType: 'image/png' },
      { type: 'text', text: 'The image above is the MCP tiny image.' },
    ],
  }),
});
