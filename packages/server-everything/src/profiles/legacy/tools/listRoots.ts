import { defineTool } from '@mcpkit/protocol-core';
import type { LegacySession, RootsState } from '../session.js';
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
  async handler(_args, session: LegacySession, extra) {
    // A 2025-era session reports the roots the client sent after `initialized`; a 2026-07-28 request has no session,
    // so the call asks for them (`input_required`) from a client that declared `roots` in the request.
    let roots: RootsState = session.roots;
    if (session.input.modern() && session.input.capabilities(extra).roots) {
      const input = await session.input.ask(extra, 'listRoots', {}, { roots: { method: 'roots/list' } });
      if ('inputRequired' in input) return input.inputRequired;
      roots = { supported: true, current: input.answers.roots.roots };
    }
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
