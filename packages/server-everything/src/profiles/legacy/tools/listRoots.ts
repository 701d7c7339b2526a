import { defineTool } from '@mcpkit/protocol-core';
import type { LegacySession } from '../session.js';
import { objectSchema } from './objectSchema.js';

export const listRoots = defineTool({
  name: 'listRoots',
  title: 'List Roots',
  description:
    "Lists the current MCP roots provided by the client. Demonstrates the roots protocol capability even though this server doesn't access files.",
  input: {},
  listing: { inputSchema: objectSchema({}), listedFor: 'roots' },
  // Reports the roots the client already sent; asks nothing.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler(_args, { roots }: LegacySession) {
    if (!roots.supported) {
      return {
        content: [
          {
            type: 'text',
            text: "The MCP client does not support the roots protocol.\n\nThis means the server cannot access information about the client's workspace directories or file system roots.",
          },
        ],
      };
    }
    if (roots.current.length === 0) {
      return {
        content: [
          {
            type: 'text',
            text:
              'The client supports roots but no roots are currently configured.\n\n' +
              'This could mean:\n' +
              "1. The client hasn't provided any roots yet\n" +
              '2. The client provided an empty roots list\n' +
              '3. The roots configuration is still being loaded',
          },
        ],
      };
    }
    const list = roots.current.map((root, i) => `${i + 1}. ${root.name || 'Unnamed Root'}\n   URI: ${root.uri}`).join('\n\n');
    return {
      content: [
        {
          type: 'text',
          text:
            `Current MCP Roots (${roots.current.length} total):\n\n${list}\n\n` +
            "Note: This server demonstrates the roots protocol capability but doesn't actually access files. " +
            'The roots are provided by the MCP client and can be used by servers that need file system access.',
        },
      ],
    };
  },
});
