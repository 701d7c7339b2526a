import { defineTool } from '@mcpkit/protocol-core';
import { MCP_TINY_IMAGE } from '../../../shared/mcpTinyImage.js';

export const getTinyImage = defineTool({
  name: 'get-tiny-image',
  title: 'Get Tiny Image Tool',
  description: 'Returns a tiny MCP logo image.',
  input: {},
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: () => ({
    content: [
      { type: 'text', text: "Here's the image you requested:" },
      { type: 'image', data: MCP_TINY_IMAGE, mimeType: 'image/png' },
      { type: 'text', text: 'The image above is the MCP logo.' },
    ],
  }),
});
